/**
 * The editor as a caregiver uses it, in a real Chromium: the Care runs tab in the tab bar,
 * forms with household pickers and a worded cron schedule, a broken condition shown under its
 * field while typing and marked on the canvas before deploy, "Run now" from the trigger node
 * with a sample trigger, and the run's path lit up on the canvas.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { SCREENSHOT_DIR, startEditorSession, type EditorSession } from "../support/browser";
import { assertAccessible } from "../support/a11y";
import { KEYS } from "../support/test-app";

declare const RED: any;
declare const document: any;

describe("browser: forms, run now and a run's path in the editor", function () {
  this.timeout(60000);
  let s: EditorSession;
  let page: Page;
  let ids: Record<string, string>;

  before(async function () {
    s = await startEditorSession(this, { demo: true });
    page = await s.newEditorPage("admin", KEYS.admin);
    ids = await page.evaluate(() => {
      const out: Record<string, string> = {};
      RED.nodes.eachWorkspace((w: any) => {
        if (w.label === "Morning medication") out.tab = w.id;
      });
      RED.nodes.eachNode((n: any) => {
        if (n.z === out.tab) out[n.type] = n.id;
      });
      return out;
    });
    await page.evaluate((tab) => RED.workspaces.show(tab), ids.tab);
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
  });

  const edit = async (nodeId: string) => {
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), nodeId);
    await page.locator("#node-dialog-ok").waitFor({ state: "visible" });
    // The tray slides in from the right: done when its Done button is left of the sidebar.
    await page.waitForFunction(() => {
      const done = document.querySelector("#node-dialog-ok")?.getBoundingClientRect();
      const sidebar = document.querySelector("#red-ui-sidebar")?.getBoundingClientRect();
      return done && sidebar && done.right <= sidebar.left;
    });
  };
  const cancel = async () => {
    await page.locator("#node-dialog-cancel").click();
    await page.locator("#node-dialog-cancel").waitFor({ state: "detached" });
  };

  it("has the Care runs tab in the sidebar's tab bar, not only in its overflow menu", async () => {
    const button = page.locator("#red-ui-tab-careflow-runs-link-button");
    await button.waitFor({ state: "visible" });
    await button.click();
    await page.locator("#red-ui-tab-careflow-runs").waitFor({ state: "visible" });
    assert.match(await page.locator("#red-ui-tab-careflow-runs").innerText(), /Care runs/);
  });

  it("says how its live link stands: Connected, then Disconnected with the last state kept and a retry after 3 s, doubling", async () => {
    await page.locator("#red-ui-tab-careflow-runs-link-button").click();
    const link = page.locator(".careflow-live-link");
    // By its state, not its words: "Disconnected" holds "connected", and hasText ignores case.
    const connected = page.locator('.careflow-runs-panel[data-live="connected"]');
    await connected.waitFor();
    let tries = 0;
    await page.route("**/careflow/runs/watch", (route) => {
      tries++;
      return route.abort();
    });
    try {
      await page.evaluate(() => RED.careflow!.checkLive!());
      await link.filter({ hasText: "Disconnected" }).waitFor();
      assert.equal(await link.getAttribute("data-next-try-ms"), "3000");
      assert.match(await link.innerText(), /showing the runs as they were; trying again in 3 s/);
      await s.screenshot(page, "17-live-link-disconnected");
      // Its own next try fails too: the one after waits twice as long.
      await link.and(page.locator('[data-next-try-ms="6000"]')).waitFor({ timeout: 15000 });
      assert.equal(tries, 2, "one try by hand, one after 3 s");
    } finally {
      await page.unroute("**/careflow/runs/watch");
    }
    await connected.waitFor({ timeout: 20000 });
    assert.match(await link.innerText(), /^● Connected: runs show as they happen$/);
  });

  it("picks the trigger's sensor from the household and words its cron schedule with the next fire times", async () => {
    await edit(ids["care-trigger"]);
    const sensor = page.locator('select[data-careflow-key="primary_sensor_id"]');
    await sensor.waitFor({ state: "visible" });
    await page.waitForFunction(() => document.querySelectorAll('select[data-careflow-key="primary_sensor_id"] option').length > 2);
    const options = await sensor.locator("option").allInnerTexts();
    assert.ok(
      options.some((o) => /binary_sensor\.bedroom_presence/.test(o)),
      options.join(" | "),
    );
    const preview = page.locator(".careflow-cron-preview");
    await preview.filter({ hasText: "Next:" }).waitFor();
    const worded = await preview.innerText();
    assert.match(worded, /At 10:00/);
    assert.equal((worded.match(/\d\d:\d\d/g) ?? []).length, 4, `the schedule and three fire times: ${worded}`);
    await page.locator('[data-careflow-key="schedule_cron"]').fill("0 25 * * *");
    await preview.filter({ hasText: /hour/ }).waitFor();
    assert.equal(await preview.innerText(), "not a valid cron expression: '25' is not an hour (0–23)", "the field's own words, once");
    const nulls = await page
      .locator("#dialog-form textarea, #dialog-form input[type=text]")
      .evaluateAll((els: any[]) => els.filter((e) => e.value === "null").length);
    assert.equal(nulls, 0, "no field shows a literal null");
    await s.screenshot(page, "10-trigger-form");
    await assertAccessible(page, "the trigger's form", { include: ['[id^="careflow-form-"]'] });
    await cancel();
  });

  it("shows the demo's 'A part went quiet' trigger: which parts, which changes, and for how long", async () => {
    const trigger = await page.evaluate(() => {
      let tab = "";
      RED.nodes.eachWorkspace((w: any) => {
        if (w.label === "A part went quiet") tab = w.id;
      });
      RED.workspaces.show(tab);
      return RED.nodes.filterNodes({ z: tab, type: "care-trigger" })[0].id as string;
    });
    await edit(trigger);
    await s.screenshot(page, "18-system-health-trigger");
    const form = page.locator("#dialog-form");
    assert.equal(await form.locator('[data-careflow-key="trigger_type"]').inputValue(), "system_health");
    const text = await form.innerText();
    for (const words of [/part/i, /went_silent|went silent/i, /came_back|came back/i, /30/])
      assert.match(text + (await form.locator("input, select, textarea").evaluateAll((els: any[]) => els.map((e) => e.value).join(" "))), words);
    await cancel();
    await page.evaluate((tab) => RED.workspaces.show(tab), ids.tab);
  });

  it("offers a notification's channels as checkboxes, once the caregiver chooses them over the level's", async () => {
    await edit(ids["care-notification"]);
    const field = page.locator('.careflow-level-channels[data-careflow-key="channels"]');
    await field.locator(".careflow-channels-chosen input[type=radio]").check();
    const boxes = field.locator(".careflow-choices input[type=checkbox]");
    await boxes.first().waitFor();
    const values = await boxes.evaluateAll((els: any[]) => els.map((e) => e.value));
    for (const c of ["pwa_popup_text", "chat_app", "eink", "webhook"]) assert.ok(values.includes(c), values.join(", "));
    // What the caregiver reads beside each box: the channel's name for people, never its id.
    const labels = field.locator(".careflow-choices label");
    await labels.filter({ hasText: "Tablet popup" }).waitFor();
    const read = await labels.allInnerTexts();
    for (const name of ["Tablet popup", "Family chat", "Speaker", "E-ink display", "Voice companion"])
      assert.ok(
        read.some((l) => l.trim() === name),
        read.join(" | "),
      );
    assert.ok(!read.some((l) => /_|pwa|chat_app/.test(l)), read.join(" | "));
    await s.screenshot(page, "14-notification-form");
    await assertAccessible(page, "the notification's form", { include: ['[id^="careflow-form-"]'] });
    await cancel();
  });

  it("shows a broken condition under its field while typing, and clears it when fixed", async () => {
    await edit(ids["care-condition"]);
    const field = page.locator('[data-careflow-key="expression"]');
    const problem = page.locator('[data-careflow-problem="expression"]');
    await field.fill("not verification.verified and (");
    await problem.waitFor({ state: "visible" });
    assert.match(await problem.innerText(), /unexpected end of expression/);
    await s.screenshot(page, "11-inline-check");
    await field.fill("not verificaton.verified");
    await problem.filter({ hasText: "did you mean 'verification'" }).waitFor();
    await field.fill("not verification.verified");
    await problem.waitFor({ state: "hidden" });
    await cancel();
  });

  it("marks a node the deploy would refuse with the red triangle before anyone deploys", async () => {
    const nodeId = ids["care-condition"];
    await page.evaluate((id) => {
      const n = RED.nodes.node(id);
      n.config = { ...n.config, expression: "verification.verified and (" };
      n.changed = true;
      RED.nodes.dirty(true);
      RED.events.emit("nodes:change", n);
    }, nodeId);
    await page.waitForFunction((id) => RED.nodes.node(id).valid === false, nodeId, { timeout: 10000 });
    await page.locator(`[id="${nodeId}"] .red-ui-flow-node-error:not(.hide)`).waitFor({ state: "attached" });
    await s.screenshot(page, "12-invalid-before-deploy");
    // Put it back as deployed, so the next test runs the deployed rule.
    await page.evaluate(() => RED.actions.invoke("core:undo"));
    await page.evaluate((id) => {
      const n = RED.nodes.node(id);
      n.config = { ...n.config, expression: "not verification.verified" };
      RED.events.emit("nodes:change", n);
      RED.nodes.dirty(false);
    }, nodeId);
    await page.waitForFunction((id) => RED.nodes.node(id).valid !== false, nodeId, { timeout: 10000 });
  });

  it("runs the rule now from its trigger node, then lights up the run's path on the canvas", async () => {
    const trigger = ids["care-trigger"];
    await page.locator(`[id="${trigger}"] .red-ui-flow-node-button-button`).click();
    // A form a caregiver reads: the rule's sensor chosen, the household's rooms to pick from.
    const dialog = page.locator(".careflow-run-now-dialog");
    await dialog.waitFor({ state: "visible" });
    assert.match(await dialog.innerText(), /This rule runs on its schedule\. Run it now, as if its trigger came with:/);
    const sensor = dialog.locator("select.careflow-run-now-sensor");
    await page.waitForFunction(() => document.querySelectorAll(".careflow-run-now-room option").length > 1);
    assert.equal(await sensor.inputValue(), "binary_sensor.bedroom_presence");
    const rooms = await dialog.locator("select.careflow-run-now-room option").allInnerTexts();
    assert.ok(rooms.includes("bedroom"), rooms.join(" | "));
    await dialog.locator("select.careflow-run-now-room").selectOption("bedroom");
    const sample = dialog.locator("textarea.careflow-sample");
    assert.equal(await sample.isVisible(), false, "the JSON is behind a toggle");
    await s.screenshot(page, "15-run-now-form");
    await assertAccessible(page, "the Run now dialog", { include: [".careflow-run-now-dialog"] });
    // The JSON behind the toggle says the same as the form.
    await dialog.locator(".careflow-run-now-toggle").click();
    await sample.waitFor({ state: "visible" });
    assert.deepEqual(JSON.parse(await sample.inputValue()), { sensor_id: "binary_sensor.bedroom_presence", room_name: "bedroom" });
    await dialog.locator(".careflow-run-now-toggle", { hasText: "Back to the form" }).click();
    await sensor.waitFor({ state: "visible" });
    await page.locator(".careflow-run-now-go").click();
    await page.locator(".red-ui-notification", { hasText: /Run #\d+ started/ }).waitFor();

    // The run opens in the sidebar, its steps in sentences; its path on the canvas.
    await page.locator(".careflow-step-sentence", { hasText: /^(⚠ )?(Sent to|Tried to send)/ }).waitFor();
    await page.waitForFunction((id) => /ran .* ms/.test(RED.nodes.node(id)?.status?.text ?? ""), ids["care-notification"], { timeout: 10000 });
    const statuses = await page.evaluate(
      (all) =>
        Object.fromEntries(
          Object.entries(all)
            .filter(([k]) => k !== "tab")
            .map(([k, id]) => [k, RED.nodes.node(id)?.status?.text ?? null]),
        ),
      ids,
    );
    assert.equal(statuses["care-trigger"], "started by hand by admin", "a run by hand, not 'fired (cron)'");
    await page.getByText(/^started by hand by admin \(as a cron trigger from binary_sensor\.bedroom_presence in bedroom\) · started/).waitFor();
    assert.match(statuses["care-condition"], /→ true$/);
    assert.ok((await page.locator(".careflow-link-taken").count()) >= 3, "the links the run took are drawn");
    const sentences = await page.locator(".careflow-step-sentence").allInnerTexts();
    assert.match(sentences[0], /^Looked in the activity log for medication: not found$/, sentences.join(" | "));
    assert.equal(sentences[1], "Checked “not verification.verified”: yes");
    // The message and its channels in words: at 10:00 on the household's clock, named for people.
    assert.match(sentences[2], /(Sent to|Tried to send).* at \d\d:\d\d: “Good morning, it is [^”]+\. Time for your morning medicine\.”/, sentences[2]);
    assert.match(sentences[2], /tablet popup|speaker|e-ink display/);
    const visible = await page.locator("#red-ui-tab-careflow-runs").innerText();
    assert.doesNotMatch(visible, /pwa_popup_text|hub_speaker_tts|→ main| ms\b|\/ws\b|llm\.|hub\.url|CAREFLOW_/, "no engineer words before the details");
    // Each warning once: under its step, not again at the end of the run.
    const said = (sentences[2].match(/could not/g) ?? []).length;
    // (The runs list, hidden behind the open run, may mark this run "needs a look": only what is shown counts.)
    assert.equal(
      await page.locator(".careflow-run-warning, .careflow-run-warning-line").filter({ visible: true }).count(),
      0,
      "the run's warnings are its steps' sentences",
    );
    await s.screenshot(page, "13-run-sentences");
    await assertAccessible(page, "the Care runs panel with a run open", { include: [".careflow-runs-panel"] });
    await page.locator(".careflow-step", { hasText: "Looked in the activity log" }).locator(".careflow-step-toggle").click();
    // The detail of the step opened (another step's may be in the page, hidden): the record and its data.
    const opened = page.locator(".careflow-step-detail").filter({ visible: true }).first();
    await opened.locator("h4", { hasText: "Wrote" }).waitFor();
    assert.match(await opened.locator(".careflow-step-record").innerText(), /^taken\? \(verification\) · [\d.]+ ms · → main$/);
    if (said) {
      await page.locator(".careflow-step", { hasText: "could not" }).locator(".careflow-step-toggle").click();
      await page.locator(".careflow-step-detail h4", { hasText: "Receipts" }).filter({ visible: true }).first().waitFor();
    }
    await s.screenshot(page, "13-run-path");
    // The README's picture of a run on the canvas.
    fs.copyFileSync(path.join(SCREENSHOT_DIR, "13-run-path.png"), path.join(SCREENSHOT_DIR, "readme-run-path.png"));

    await page.locator("a", { hasText: "all runs" }).click();
    await page.waitForFunction((id) => !RED.nodes.node(id)?.status, ids["care-notification"]);
    assert.equal(await page.locator(".careflow-link-taken").count(), 0, "closing the run clears the path");
    // The list says which runs a person started.
    const row = page.locator(".careflow-run").first();
    await row.locator(".careflow-run-by-hand").waitFor();
    assert.equal(await row.locator(".careflow-run-by-hand").innerText(), "started by hand by admin");
    await s.screenshot(page, "16-runs-list-by-hand");
  });
});
