/**
 * The Devices tab as a caregiver or integrator sees it in a real Chromium: a locked tab named
 * "Devices" with the camera and terminal chains drawn and labelled, the device nodes in their
 * own palette section with help, and their edit forms built from their specs.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEVICES_TAB_ID } from "../../runtime/household/devices/devices-tab";
import { startEditorSession, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

declare const RED: any;
declare const document: any;

describe("browser: the Devices tab in the editor", function () {
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

  it("shows a locked Devices tab with the camera and terminal chains, labelled", async () => {
    const tabs = await page.locator("#red-ui-workspace-tabs .red-ui-tab-label").allInnerTexts();
    assert.ok(
      tabs.some((x) => x.trim() === "Devices"),
      tabs.join(", "),
    );
    await page.evaluate((id) => RED.workspaces.show(id), DEVICES_TAB_ID);
    const info = await page.evaluate((id) => {
      const ws = RED.nodes.workspace(id);
      const labels = [...document.querySelectorAll("#red-ui-workspace-chart .red-ui-flow-node-label text")].map((t: any) => t.textContent);
      return { locked: ws.locked === true, labels, links: document.querySelectorAll("#red-ui-workspace-chart .red-ui-flow-link-line").length };
    }, DEVICES_TAB_ID);
    assert.equal(info.locked, true);
    for (const label of ["Camera upload", "Rotate", "Label filter", "Store", "Aggregate", "Terminal input", "Terminal actions"]) {
      assert.ok(info.labels.includes(label), `${label} in ${info.labels.join(", ")}`);
    }
    assert.ok(info.links >= 5, `${info.links} wires drawn`);
    await s.screenshot(page, "30-devices-tab");
  });

  it("lists the device nodes in their own palette section, with help and a form from their spec", async () => {
    const types = await page.evaluate(() =>
      [...document.querySelectorAll("#red-ui-palette-container-care_devices .red-ui-palette-node")].map((n: any) => n.getAttribute("data-palette-type")),
    );
    assert.deepEqual([...types].sort(), [
      "care-device-aggregate",
      "care-device-in",
      "care-device-label_filter",
      "care-device-rotate",
      "care-device-store",
      "care-device-terminal",
    ]);
    const help = await page.evaluate(
      () => RED.nodes.getType("care-device-terminal") && document.querySelector('script[data-help-name="care-device-terminal"]')?.textContent,
    );
    assert.match(String(help), /newest open alert/);
    // Locked: opening a node of the tab shows no edit form.
    const edit = () =>
      page.evaluate(() => {
        const node = RED.nodes.filterNodes({ type: "care-device-terminal" })[0];
        RED.editor.edit(node);
      });
    await edit();
    await page.waitForTimeout(500);
    assert.equal(await page.locator("#careflow-form-care-device-terminal").count(), 0, "no edit form while the tab is locked");
    // Unlocked (what an integrator does on purpose): the terminal node's form offers its press mapping.
    await page.evaluate((id) => RED.workspaces.unlock(id), DEVICES_TAB_ID);
    await edit();
    await page.locator("#careflow-form-care-device-terminal select, #careflow-form-care-device-terminal input").first().waitFor();
    const form = await page.locator("#careflow-form-care-device-terminal").innerText();
    assert.match(form, /single press/);
    assert.match(form, /long press/);
    await s.screenshot(page, "31-devices-terminal-form");
    await page.keyboard.press("Escape");
  });
});
