/**
 * Issue 49 in a real Chromium: the notification form shows, under the message, how it will read
 * for each receiver with careflow's fixed words around it in the receiver's language: a
 * German-speaking relative's chat in German, the Hindi-speaking senior's popup in Hindi; and it
 * follows the form as the caregiver types and changes the level.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startEditorSession, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

declare const RED: any;

describe("browser: the notification form previews the fixed words in each receiver's language", function () {
  this.timeout(120_000);
  let s: EditorSession;
  let page: Page;

  before(async function () {
    s = await startEditorSession(this, {
      settings: {
        app: { language: "en" },
        notifications: {
          chat_app: {
            targets: [
              { name: "Anna", chat_id: 1001, alert_levels: [], language: "de" },
              { name: "Ben", chat_id: 1002, alert_levels: [] },
            ],
          },
        },
      },
    });
    await s.t.post("/api/v1/persons", { display_name: "Rose", language: "hi" });
    page = await s.newEditorPage("admin", KEYS.admin);
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
  });

  const form = () => page.locator("#careflow-form-care-notification");
  const card = (language: string) => form().locator(`.careflow-words-preview-item[data-language="${language}"]`);

  it("a German-speaking relative sees German buttons and note; the senior's popup reads in Hindi; English for the other relative", async () => {
    await page.evaluate(() => {
      const def = RED.nodes.getType("care-notification");
      RED.view.importNodes(
        [
          { id: "preview-tab", type: "tab", label: "Preview", disabled: false, info: "" },
          {
            id: "preview-node",
            type: "care-notification",
            z: "preview-tab",
            name: "tell",
            x: 200,
            y: 80,
            wires: [],
            config_version: def.defaults.config_version.value,
            config: { alert_level: "warning", channels: ["pwa_popup_text", "chat_app"], message_template: "Rose ist noch im Bad" },
          },
        ],
        { generateIds: false },
      );
      RED.workspaces.show("preview-tab");
      RED.editor.edit(RED.nodes.node("preview-node"));
    });
    const anna = card("de");
    await anna.waitFor();
    assert.match(await anna.innerText(), /Anna \(family chat\) · Deutsch/);
    assert.equal(await anna.locator(".careflow-words-message").innerText(), "Rose ist noch im Bad");
    assert.deepEqual(await anna.locator(".careflow-words-buttons span").allInnerTexts(), ["Ich kümmere mich", "Erledigt"]);
    assert.match(await anna.locator(".careflow-words-note").innerText(), /^🏃 Anna kümmert sich, \d\d:\d\d$/);
    assert.equal(await anna.locator(".careflow-words-card").getAttribute("lang"), "de");

    const popup = card("hi");
    assert.match(await popup.innerText(), /Rose's tablet · हिन्दी/);
    assert.equal(await popup.locator(".careflow-words-heading").innerText(), "कृपया देखें");
    assert.deepEqual(await popup.locator(".careflow-words-buttons span").allInnerTexts(), ["ठीक है"]);
    assert.deepEqual(await card("en").locator(".careflow-words-buttons span").allInnerTexts(), ["I'm on it", "Resolved"]);
    await form().locator(".careflow-words-preview").scrollIntoViewIfNeeded();
    // Drawn with careflow's own Devanagari font (the tablet's), not left to the computer's fonts.
    const loaded: string[] = await page.evaluate(async () => {
      const d = (globalThis as any).document;
      await d.fonts.ready;
      return [...d.fonts].filter((f: any) => f.status === "loaded").map((f: any) => f.family as string);
    });
    assert.ok(loaded.includes("careflow Noto Sans Devanagari"), loaded.join(", "));
    await s.screenshot(page, "notification-preview-languages");

    // It follows the form: the message as typed; an info message has no chat buttons.
    await page.locator("#careflow-care-notification-message_template").fill("Rose hat gut geschlafen");
    await anna.locator(".careflow-words-message").filter({ hasText: "gut geschlafen" }).waitFor();
    await page.locator("#careflow-care-notification-alert_level").selectOption("info");
    await card("hi").locator(".careflow-words-heading").filter({ hasText: "आपके लिए" }).waitFor();
    assert.equal(await card("de").locator(".careflow-words-buttons").count(), 0);
    await page.locator("#node-dialog-cancel").click();
  });
});
