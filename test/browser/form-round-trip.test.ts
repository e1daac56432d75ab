/**
 * Issue 42 §1 in a real Chromium: opening a node's edit dialog and pressing Done without a
 * change changes nothing: for every node of every demo rule (then deployed: every stored
 * config is byte-identical) and for every registered node type, as dropped from the palette.
 * The notification form keeps "the level's default channels", names them and
 * says who will see the message; picking channels is a visible choice, and an empty pick is
 * refused by the deploy, naming the rule and the node.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { deployAndReadNotification, startEditorSession, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

declare const RED: any;
declare const window: any;

interface EditorNode {
  id: string;
  type: string;
  name: string;
  config: string;
  config_version: unknown;
}

describe("browser: a node's dialog closed with Done changes nothing", function () {
  this.timeout(180_000);
  let s: EditorSession;
  let page: Page;

  before(async function () {
    s = await startEditorSession(this, { demo: true });
    page = await s.newEditorPage("admin", KEYS.admin);
    // The edit tray opens and closes without its slide: some hundred dialogs are opened here.
    await page.evaluate(() => ((window as any).$.fx.off = true));
    await page.addStyleTag({ content: ".red-ui-tray { transition: none !important; }" });
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
  });

  /** Every stored flow node, as its row's JSON text. */
  const storedRows = async (): Promise<Map<string, string>> => {
    const rows: Array<{ id: string; json: string }> = await s.t.app.ctx.db("flow_nodes").select("id", "json");
    return new Map(rows.map((r) => [r.id, r.json]));
  };

  /** The care nodes of the given tabs (all rule tabs when none), with their config as JSON text. */
  const editorNodes = (tabs?: string[]): Promise<EditorNode[]> =>
    page.evaluate((tabs) => {
      const rules = new Set<string>();
      RED.nodes.eachNode((n: any) => {
        if (n.type === "care-trigger") rules.add(n.z);
      });
      const out: EditorNode[] = [];
      RED.nodes.eachNode((n: any) => {
        if (!String(n.type).startsWith("care-") || !(tabs ? tabs.includes(n.z) : rules.has(n.z))) return;
        out.push({ id: n.id, type: n.type, name: n.name, config: JSON.stringify(n.config), config_version: n.config_version });
      });
      return out;
    }, tabs);

  /** Opens the node's edit dialog, waits for its form, and presses Done. */
  const openAndDone = async (id: string, type: string) => {
    await page.evaluate((id) => {
      RED.workspaces.show(RED.nodes.node(id).z);
      RED.editor.edit(RED.nodes.node(id));
    }, id);
    const root = page.locator(`#careflow-form-${type.replace(/[^a-z0-9_-]/gi, "_")}`);
    await root.locator(".form-row").first().waitFor({ state: "attached" });
    const ok = page.locator("#node-dialog-ok");
    await ok.click();
    await ok.waitFor({ state: "detached" });
  };

  const changedNodes = (before: EditorNode[], after: EditorNode[]) =>
    after
      .filter((a) => {
        const b = before.find((x) => x.id === a.id)!;
        return a.config !== b.config || a.config_version !== b.config_version;
      })
      .map((a) => ({ node: `${a.type} '${a.name}'`, before: before.find((x) => x.id === a.id)!.config, after: a.config }));

  it("every node of every demo rule: Done without a change, deploy, and every stored node is byte-identical", async () => {
    const stored = await storedRows();
    const before = await editorNodes();
    const types = new Set(before.map((n) => n.type));
    for (const t of ["care-trigger", "care-notification", "care-condition", "care-verification"])
      assert.ok(types.has(t), `the demo has a ${t} node (${[...types].join(", ")})`);
    for (const n of before) await openAndDone(n.id, n.type);
    assert.deepEqual(changedNodes(before, await editorNodes()), [], "no node's config changed in the editor");
    assert.equal(await page.evaluate(() => RED.nodes.dirty()), false, "nothing to deploy");

    // Deployed anyway (the whole flow, as a caregiver's next deploy would send it).
    await page.evaluate(() => RED.nodes.dirty(true));
    const note = await deployAndReadNotification(page);
    assert.equal(note.type, "success", note.text);
    const after = await storedRows();
    assert.deepEqual([...after.keys()].sort(), [...stored.keys()].sort());
    // Each node's config byte for byte; the rest of each node as data (Node-RED orders a tab's own fields its way).
    const configOf = (json: string | undefined) => JSON.stringify(JSON.parse(json ?? "{}").config);
    const differ = [...stored]
      .filter(([id, json]) => configOf(after.get(id)) !== configOf(json))
      .map(([id, json]) => ({ id, before: json, after: after.get(id) }));
    assert.deepEqual(differ, [], "every stored config is byte-identical");
    for (const [id, json] of stored) assert.deepEqual(JSON.parse(after.get(id)!), JSON.parse(json), id);
    const remind = [...after.values()].map((j) => JSON.parse(j)).find((n) => n.type === "care-notification" && n.name === "remind");
    assert.ok(remind && !("channels" in remind.config) && !("eink_targets" in remind.config), JSON.stringify(remind?.config));
  });

  // As the palette drops it: the fields with a default, the optional ones (a notification's channels) left out.
  it("every registered node type, as dropped from the palette, comes back unchanged", async function () {
    this.timeout(600_000);
    const tab = "roundtrip";
    const types: string[] = await page.evaluate((tab) => {
      const care = RED.nodes.registry.getNodeTypes().filter((t: string) => t.startsWith("care-"));
      const nodes: any[] = [{ id: tab, type: "tab", label: "Round trip", disabled: false, info: "" }];
      care.forEach((t: string, i: number) => {
        const def = RED.nodes.getType(t);
        const base = { type: t, z: tab, name: t, config_version: def.defaults.config_version.value, wires: [] };
        const config = JSON.parse(JSON.stringify(def.defaults.config.value));
        nodes.push({ ...base, id: `${tab}-${i}`, x: 150 + (i % 8) * 180, y: 60 + Math.floor(i / 8) * 60, config });
      });
      RED.view.importNodes(nodes, { generateIds: false });
      return care;
    }, tab);
    assert.ok(types.length >= 30, `the registered care types (${types.length})`);
    const before = await editorNodes([tab]);
    assert.equal(before.length, types.length);
    const started = Date.now();
    for (const n of before) await openAndDone(n.id, n.type);
    console.log(`      (${before.length} dialogs in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    assert.deepEqual(changedNodes(before, await editorNodes([tab])), []);
    await page.evaluate((tab) => RED.workspaces.delete(RED.nodes.workspace(tab)), tab);
  });

  const remindId = () =>
    page.evaluate(() => {
      const tab = RED.nodes
        .getWorkspaceOrder()
        .map((id: string) => RED.nodes.workspace(id))
        .find((t: any) => t.label === "Morning medication");
      RED.workspaces.show(tab.id);
      return RED.nodes.filterNodes({ z: tab.id, type: "care-notification" })[0].id as string;
    });
  const form = () => page.locator("#careflow-form-care-notification");

  it("the notification form keeps the level's default channels, names them, and says who will see the message", async () => {
    const id = await remindId();
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), id);
    const defaults = form().locator(".careflow-level-defaults");
    await defaults.filter({ hasText: "Reminder" }).waitFor();
    assert.equal(await defaults.innerText(), "(Reminder: tablet popup, speaker, e-ink display)");
    assert.equal(await form().locator('.careflow-channels-level input[type="radio"]').isChecked(), true);
    assert.equal(await form().locator(".careflow-level-channels .careflow-choices").isVisible(), false, "no channel list until one is chosen");
    const who = form().locator(".careflow-audience-who");
    await who.waitFor();
    assert.equal(await who.innerText(), "Who will see it: Grandma Rose's tablet, the hub speaker, Hallway e-ink display, Bedside terminal, hall_display");
    await form().locator(".careflow-level-channels").scrollIntoViewIfNeeded();
    await s.screenshot(page, "form-01-notification-level-defaults");

    // A warning would also reach the voice companion on her tablet; the family chat is not set up.
    await page.locator("#careflow-care-notification-alert_level").selectOption("warning");
    await who.filter({ hasText: "voice companion" }).waitFor();
    assert.equal(
      await who.innerText(),
      "Who will see it: Grandma Rose's tablet, Hallway e-ink display, Bedside terminal, hall_display, the voice companion on Grandma Rose's tablet",
    );
    assert.match(await form().locator(".careflow-audience-note").innerText(), /Family chat: no family chat is set up for the warning level/);
    assert.equal(await defaults.innerText(), "(Warning: tablet popup, family chat, e-ink display, voice companion)");
    await s.screenshot(page, "form-02-notification-warning-audience");
    await page.locator("#node-dialog-cancel").click();
    await page.locator("#node-dialog-cancel").waitFor({ state: "detached" });
  });

  it("picking channels is a visible choice; none picked is shown under the field and refused by the deploy, naming the rule and the node", async () => {
    const id = await remindId();
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), id);
    await form().locator(".careflow-level-defaults").filter({ hasText: "Reminder" }).waitFor();
    await form().locator('.careflow-channels-chosen input[type="radio"]').check();
    const boxes = form().locator('.careflow-level-channels .careflow-choices input[type="checkbox"]');
    await boxes.first().waitFor({ state: "visible" });
    const checked = async () => (await boxes.evaluateAll((els: any[]) => els.filter((e) => e.checked).map((e) => e.value))) as string[];
    assert.deepEqual(await checked(), ["pwa_popup_text", "eink", "hub_speaker_tts"], "choosing starts from the level's channels");
    for (const v of await checked()) await form().locator(`.careflow-level-channels .careflow-choices input[value="${v}"]`).uncheck();
    const problem = form().locator('[data-careflow-problem="channels"]');
    await problem.filter({ hasText: "must reach someone" }).waitFor();
    assert.match(await form().locator(".careflow-audience-who").innerText(), /Who will see it: nobody/);
    await s.screenshot(page, "form-03-notification-no-channel-picked");
    await page.locator("#node-dialog-ok").click();
    await page.locator("#node-dialog-ok").waitFor({ state: "detached" });

    const refused = await deployAndReadNotification(page);
    assert.equal(refused.type, "error", refused.text);
    assert.match(refused.text, /rule 'Morning medication', step 'remind', channels: a notification must reach someone/);
    await page.waitForTimeout(500);
    await s.screenshot(page, "form-04-deploy-refused-no-channel");
    const stored = [...(await storedRows()).values()].map((j) => JSON.parse(j)).find((n) => n.type === "care-notification" && n.name === "remind");
    assert.ok(!("channels" in stored.config), "nothing was deployed");

    // Back to the level's channels: the config is as it was.
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), id);
    await form().locator('.careflow-channels-level input[type="radio"]').check();
    await page.locator("#node-dialog-ok").click();
    await page.locator("#node-dialog-ok").waitFor({ state: "detached" });
    assert.equal(await page.evaluate((id) => JSON.stringify(RED.nodes.node(id).config), id), JSON.stringify(stored.config));
  });
});
