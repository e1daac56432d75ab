/**
 * The palette and help in a real Chromium: care sections first with display names, types
 * that cannot run yet marked, generic nodes still there; every care node's help rendered
 * as markdown (no literal `&gt;`, nothing cut off) with links to docs the app serves.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { registry } from "../../nodes/registry.generated";
import { allSpecs, isAvailable } from "../../nodes/_kit/registry-types";
import { nodeRedType } from "../../nodes/_kit/types";
import { sourceNodesDir } from "../../nodes/_build/generate-registry";
import { startEditorSession, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

declare const RED: any;
declare const document: any;
declare const getComputedStyle: any;

const FOLDER = { step: "steps", filter: "filters", channel: "channels" } as const;

describe("browser: the palette and help of care nodes", function () {
  this.timeout(60000);
  let s: EditorSession;
  let page: Page;

  before(async function () {
    s = await startEditorSession(this);
    page = await s.newEditorPage("admin", KEYS.admin);
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
  });

  const palette = () =>
    page.evaluate(() =>
      [...document.querySelectorAll(".red-ui-palette-category")]
        .filter((c: any) => c.querySelector(".red-ui-palette-node"))
        .map((c: any) => ({
          id: c.id.replace("red-ui-palette-container-", "") as string,
          nodes: [...c.querySelectorAll(".red-ui-palette-node")].map((n: any) => ({
            type: n.getAttribute("data-palette-type") as string,
            // (a non-breaking hyphen keeps Node-RED from splitting "E-ink" into "E - ink")
            label: (n.querySelector(".red-ui-palette-label").innerText as string)
              .replace(/\s+/g, " ")
              .replace(/\u2011/g, "-")
              .trim(),
            opacity: Number(getComputedStyle(n).opacity),
          })),
        })),
    );

  it("shows the care sections first, then Node-RED's own", async () => {
    const sections = (await palette()).map((c) => c.id);
    assert.deepEqual(sections.slice(0, 3), ["care_steps", "care_filters", "care_channels"]);
    for (const generic of ["common", "function"]) assert.ok(sections.includes(generic), `${generic} in ${sections.join(", ")}`);
    await s.screenshot(page, "10-palette");
  });

  it("names care nodes by their display names, each once, and marks those that cannot run yet", async () => {
    const nodes = new Map((await palette()).flatMap((c) => c.nodes.map((n) => [n.type, { ...n, section: c.id }] as const)));
    for (const spec of allSpecs(registry)) {
      const n = nodes.get(nodeRedType(spec));
      assert.ok(n, `${spec.type} in the palette`);
      assert.ok(n.label.startsWith(spec.displayName), `${spec.type}: '${n.label}' starts with '${spec.displayName}'`);
      assert.doesNotMatch(n.label, /_/, "no type ids in the palette");
      if (isAvailable(registry, spec)) {
        assert.doesNotMatch(n.label, /not yet/);
        assert.equal(n.opacity, 1, `${spec.type} is not faded`);
      } else {
        assert.match(n.label, /\(not yet\)$/, `${spec.type} is marked`);
        assert.ok(n.opacity < 1, `${spec.type} is faded`);
      }
    }
    assert.equal(nodes.get("care-activity_detection")?.label, "Record activity");
    assert.equal(nodes.get("care-interactive_prompt")?.label, "Ask the senior");
    const care = [...nodes.values()].filter((n) => n.section.startsWith("care_"));
    const labels = care.map((n) => n.label);
    assert.deepEqual(
      labels.filter((l, i) => labels.indexOf(l) !== i),
      [],
      "no care label twice",
    );
    assert.deepEqual(
      care.filter((n) => /home state/i.test(n.label)).map((n) => `${n.section}: ${n.label}`),
      ["care_steps: Home state", "care_filters: Home state filter"],
    );
    // A label wraps between words, never inside one (Node-RED breaks a word wider than the node).
    const broken = await page.evaluate(() =>
      [...document.querySelectorAll(".red-ui-palette-node[data-palette-type^='care-']")]
        .map((n: any) => [n.getAttribute("data-palette-label"), n.querySelector(".red-ui-palette-label").innerText.replace(/\s+/g, " ").trim()])
        .filter(([label, shown]: string[]) => label !== shown),
    );
    assert.deepEqual(broken, []);
  });

  it("keeps generic Node-RED nodes for tabs that are not rules", async () => {
    const types = (await palette()).flatMap((c) => c.nodes.map((n) => n.type));
    for (const t of ["inject", "debug", "function", "http in"]) assert.ok(types.includes(t), t);
  });

  const helpOf = async (type: string): Promise<{ text: string; html: string }> => {
    await page.evaluate((type) => {
      RED.sidebar.show("help");
      RED.sidebar.help.show(type);
    }, type);
    const help = page.locator(".red-ui-sidebar-help-stack .red-ui-help").first();
    await help.locator("h1", { hasText: /./ }).waitFor();
    return { text: await help.innerText(), html: await help.innerHTML() };
  };

  it("renders every care node's help as markdown, whole, with links to the docs", async () => {
    for (const spec of allSpecs(registry)) {
      const type = nodeRedType(spec);
      const { text, html } = await helpOf(type);
      assert.doesNotMatch(text, /&(gt|lt|amp|quot);/, `${spec.type}: no literal HTML escapes`);
      assert.doesNotMatch(text, /(^|\n)\s*>/, `${spec.type}: no literal blockquote marks`);
      const file = path.join(sourceNodesDir(), FOLDER[spec.kind], spec.type, `${spec.type}.help.md`);
      if (fs.existsSync(file)) {
        // The last sentence of the prose (usually the example) is there in full.
        const last = fs.readFileSync(file, "utf8").trim().split("\n").pop()!;
        const words = last.replace(/[`*]/g, "").split(/\s+/).filter(Boolean);
        const flat = text.replace(/\s+/g, " ");
        assert.ok(flat.includes(words.slice(-4).join(" ")), `${spec.type}: '${words.slice(-4).join(" ")}' in help:\n${flat}`);
      }
      assert.match(html, new RegExp(`href="/docs/nodes/${FOLDER[spec.kind]}/${spec.type}"`), `${spec.type}: links its reference page`);
      if (!isAvailable(registry, spec)) assert.match(text, /Not available yet: this node needs/);
      const cut = await page.evaluate(() => {
        const help = document.querySelector(".red-ui-sidebar-help-stack .red-ui-help");
        const right = help.getBoundingClientRect().right;
        return [...help.querySelectorAll("code, p, li")].filter((el: any) => el.getBoundingClientRect().right > right + 1).map((el: any) => el.innerText);
      });
      assert.deepEqual(cut, [], `${spec.type}: nothing runs past the sidebar's edge`);
    }
    const condition = await helpOf("care-condition");
    assert.match(condition.text, /person_detections\.count > 0 and system\.local_hour_24h >= "22"/);
    await s.screenshot(page, "11-help-condition");
  });

  it("opens the docs the help links to in a new tab, served by the app", async () => {
    await helpOf("care-notification");
    const link = page.locator(".red-ui-sidebar-help-stack .red-ui-help a", { hasText: "Templates" }).first();
    const [docs] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
    await docs.waitForLoadState();
    assert.equal(new URL(docs.url()).pathname + new URL(docs.url()).hash, "/docs/conditions#templates");
    assert.ok(page.url().includes("/editor"), "the editor stays open");
    await docs.locator("h2#templates").waitFor();
    assert.equal(await docs.locator("h1").first().innerText(), "Conditions and templates");
    await s.screenshot(docs, "12-docs-conditions");
    for (const p of ["/docs/triggers", "/docs/filters", "/docs/nodes/steps/condition"]) {
      await docs.goto(s.t.baseUrl + p);
      assert.ok((await docs.locator("h1").first().innerText()).length > 0, p);
      assert.equal(await docs.locator("#source").count(), 0, `${p} rendered as markdown`);
    }
    await docs.close();
  });

  it("serves only the docs pages it offers", async () => {
    assert.equal((await s.t.get("/docs/decisions", null)).status, 404);
    assert.equal((await s.t.get("/docs/..%2Fpackage.json", null)).status, 400);
    assert.equal((await s.t.get("/docs/nodes/steps/nope", null)).status, 404);
    const md = await fetch(`${s.t.baseUrl}/docs/triggers`, { headers: { accept: "text/markdown" } });
    assert.match(await md.text(), /^# Triggers and gates/);
  });
});
