/**
 * The tracking nodes' forms in a real Chromium: the dementia_signal filter picks people from the
 * household and kinds and severity from their lists, the cts_window trigger's window has its own
 * fields with tracking-camera and room pickers, and so has the cts_window_poll step.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startEditorSession, type EditorSession } from "../support/browser";
import { importRule } from "../support/eventually";
import { KEYS } from "../support/test-app";

declare const RED: any;
declare const document: any;

const CAMERAS = [
  { id: "hall-cam", name: "Hall camera", rtsp_url: "", location: "Hallway" },
  { id: "kitchen-cam", name: "Kitchen camera", rtsp_url: "", location: "Kitchen" },
];

describe("browser: the tracking nodes' pickers", function () {
  this.timeout(60000);
  let s: EditorSession;
  let page: Page;
  let ids: Record<string, string>;

  before(async function () {
    s = await startEditorSession(this, { settings: { cts: { cameras: CAMERAS } } });
    const { t } = s;
    for (const name of ["Hallway", "Kitchen"]) await t.post("/api/v1/rooms", { name });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    await t.post("/api/v1/persons", { person_id: "walter", display_name: "Walter" });
    await importRule(t, {
      rule: { name: "Hallway at night", trigger_type: "cts_window", cts_window_config: { cameras: ["hall-cam"], rooms: ["Hallway"], min_identities: 1 } },
      contexts: [{ context_type: "dementia_signal", config: { person_ids: ["rose"], kinds: ["pacing"], severity_min: "warning" } }],
      steps: [{ label: "Window", step_type: "cts_window_poll", config: { cameras: ["hall-cam"], rooms: ["Hallway"] } }],
    });
    page = await s.newEditorPage("admin", KEYS.admin);
    ids = await page.evaluate(() => {
      const out: Record<string, string> = {};
      RED.nodes.eachWorkspace((w: any) => {
        if (w.label === "Hallway at night") out.tab = w.id;
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
    await page.waitForFunction(() => {
      const done = document.querySelector("#node-dialog-ok")?.getBoundingClientRect();
      const sidebar = document.querySelector("#red-ui-sidebar")?.getBoundingClientRect();
      return done && sidebar && done.right <= sidebar.left;
    });
  };
  const done = async () => {
    await page.locator("#node-dialog-ok").click();
    await page.locator("#node-dialog-ok").waitFor({ state: "detached" });
  };
  /** The checkboxes of a list field: value → checked. */
  const checks = async (key: string): Promise<Record<string, boolean>> => {
    const boxes = page.locator(`[data-careflow-key="${key}"] input[type=checkbox]`);
    await boxes.first().waitFor();
    return Object.fromEntries(await boxes.evaluateAll((els: any[]) => els.map((e) => [e.value, e.checked])));
  };
  const configOf = (nodeId: string) => page.evaluate((id) => RED.nodes.node(id).config, nodeId);

  it("picks the dementia_signal filter's people from the household, with kinds and severity", async () => {
    await edit(ids["care-filter-dementia_signal"]);
    await page.waitForFunction(() => document.querySelectorAll('[data-careflow-key="person_ids"] input').length === 2);
    assert.deepEqual(await checks("person_ids"), { rose: true, walter: false });
    assert.match(await page.locator('[data-careflow-key="person_ids"]').innerText(), /Walter · walter/);
    const kinds = await checks("kinds");
    assert.equal(kinds.pacing, true);
    assert.equal(kinds.nighttime_movement, false);
    assert.deepEqual(await page.locator('select[data-careflow-key="severity_min"] option').allInnerTexts(), ["info", "warning", "emergency"]);
    await page.locator('[data-careflow-key="person_ids"] input[value="walter"]').check();
    await page.locator('[data-careflow-key="kinds"] input[value="nighttime_movement"]').check();
    await page.locator('select[data-careflow-key="severity_min"]').selectOption("emergency");
    await s.screenshot(page, "40-dementia-signal-filter");
    await done();
    const config = await configOf(ids["care-filter-dementia_signal"]);
    assert.deepEqual(config.person_ids, ["rose", "walter"]);
    assert.deepEqual(config.kinds, ["pacing", "nighttime_movement"]);
    assert.equal(config.severity_min, "emergency");
  });

  it("gives the cts_window trigger's window its own fields with camera and room pickers; unticked it is empty", async () => {
    await edit(ids["care-trigger"]);
    const toggle = page.locator('input[data-careflow-key="cts_window_config"]');
    assert.equal(await toggle.isChecked(), true);
    await page.waitForFunction(() => document.querySelectorAll('[data-careflow-key="cts_window_config__cameras"] input').length === 2);
    assert.deepEqual(await checks("cts_window_config__cameras"), { "hall-cam": true, "kitchen-cam": false });
    assert.match(await page.locator('[data-careflow-key="cts_window_config__cameras"]').innerText(), /Kitchen camera \(Kitchen\) · kitchen-cam/);
    assert.deepEqual(await checks("cts_window_config__rooms"), { Hallway: true, Kitchen: false });
    assert.equal(await page.locator('[data-careflow-key="cts_window_config__duration_s"]').inputValue(), "10");
    assert.equal(await page.locator('[data-careflow-key="occupancy_config"]').isChecked(), false, "another kind's config stays empty");
    assert.equal(await page.locator('[data-careflow-object="occupancy_config"]').isVisible(), false);
    await page.locator('[data-careflow-key="cts_window_config__rooms"] input[value="Kitchen"]').check();
    await page.locator('[data-careflow-key="cts_window_config__duration_s"]').fill("30");
    await s.screenshot(page, "41-cts-window-trigger");
    await done();
    const config = await configOf(ids["care-trigger"]);
    assert.deepEqual(config.cts_window_config, {
      duration_s: 30,
      sample_period_s: 1,
      cameras: ["hall-cam"],
      rooms: ["Hallway", "Kitchen"],
      max_frames: 30,
      min_detections: 1,
      min_identities: 1,
    });
    assert.equal(config.occupancy_config, null);

    await edit(ids["care-trigger"]);
    await page.locator('input[data-careflow-key="cts_window_config"]').uncheck();
    assert.equal(await page.locator('[data-careflow-object="cts_window_config"]').isVisible(), false);
    await done();
    assert.equal((await configOf(ids["care-trigger"])).cts_window_config, null);
  });

  it("picks the cts_window_poll step's tracking cameras and rooms", async () => {
    await edit(ids["care-cts_window_poll"]);
    await page.waitForFunction(() => document.querySelectorAll('[data-careflow-key="cameras"] input').length === 2);
    assert.deepEqual(await checks("cameras"), { "hall-cam": true, "kitchen-cam": false });
    assert.deepEqual(await checks("rooms"), { Hallway: true, Kitchen: false });
    await page.locator('[data-careflow-key="cameras"] input[value="kitchen-cam"]').check();
    await s.screenshot(page, "42-cts-window-poll");
    await done();
    assert.deepEqual((await configOf(ids["care-cts_window_poll"])).cameras, ["hall-cam", "kitchen-cam"]);
  });
});
