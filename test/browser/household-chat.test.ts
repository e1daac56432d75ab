/**
 * The Household page's Family chat tab (issue 43 §1) in a real Chromium against the fake chat
 * service: the bot's name shown; an admin makes a relative's code, the fake chat "sends"
 * `/start CODE` from a new chat, the page sees the relative join and the bot welcomed them; a
 * test message from the page reaches the fake; the relative's levels changed with a tick; a
 * warning rule's alert then reaches the new chat and not the chat that takes emergencies only;
 * a caregiver reads the tab without its buttons. Screenshots: test-output/screenshots/household-chat-*.png.
 */
import assert from "node:assert/strict";
import path from "node:path";
import type { Page } from "playwright-core";
import { SCREENSHOT_DIR, startEditorSession, type EditorSession } from "../support/browser";
import { assertAccessible } from "../support/a11y";
import { eventually, importRule } from "../support/eventually";
import { KEYS } from "../support/test-app";
import { startFakeChat, type ChatUser, type FakeChat } from "../fakes/chat-server";

const TOKEN = "77:household-chat-token";
const CARLA: ChatUser = { id: 601, is_bot: false, first_name: "Carla" };

describe("browser: the Household page, family chat", function () {
  this.timeout(180_000);
  let s: EditorSession;
  let chat: FakeChat;
  let page: Page;

  const textsTo = (chatId: number) => chat.messages.filter((m) => m.chat_id === chatId).map((m) => m.text ?? "");
  const carlaRow = () => page.locator('#chat-relatives tbody tr[data-chat-id="601"]');

  async function signIn(key: string): Promise<Page> {
    const p = await (await s.browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    p.on("pageerror", (e) => s.pageErrors.push(e.message));
    await p.goto(`${s.t.baseUrl}/household/`);
    await p.locator("#key").fill(key);
    await p.locator("#sign-in-form button[type=submit]").click();
    await p
      .locator("#who")
      .filter({ hasText: /Signed in/ })
      .waitFor();
    await p.locator("#tabs [data-tab=chat]").click();
    await p.locator("#chat-bot-status[data-ok]").waitFor();
    return p;
  }

  before(async function () {
    chat = await startFakeChat({ token: TOKEN, chats: [{ id: 1001, type: "private" }] });
    s = await startEditorSession(this, {
      settings: {
        notifications: {
          chat_app: { api_base_url: chat.url, token: TOKEN, poll_timeout_seconds: 1, targets: [{ name: "Anna", chat_id: 1001, alert_levels: ["emergency"] }] },
        },
      },
    });
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors on the page");
    await s?.close();
    await chat?.close();
  });

  it("says the bot works, by its name, and lists the settings file's relative", async () => {
    page = await signIn(KEYS.admin);
    assert.match(await page.locator("#chat-bot-status").innerText(), /The bot works: careflow \(@careflow_bot\) answers/);
    const anna = page.locator('#chat-relatives tbody tr[data-chat-id="1001"]');
    await anna.waitFor();
    assert.match(await anna.innerText(), /Anna\s+1001/);
    assert.match(await anna.innerText(), /settings file/);
    assert.equal(await anna.locator("[data-action=remove]").count(), 0, "a settings file chat is removed in the file");
  });

  it("refuses a code without a name, beside the field", async () => {
    await page.locator("#chat-form button[type=submit]").click();
    await page.locator("#chat-name-error").filter({ hasText: "must not be empty" }).waitFor();
    assert.equal(await page.locator("#chat-form [name=name]").getAttribute("aria-invalid"), "true");
  });

  it("makes Carla's code; she sends /start CODE to the bot, is welcomed in her chat and appears on the page", async () => {
    await page.locator("#chat-form [name=name]").fill("Carla");
    await page.locator("#chat-level-info").check();
    await page.locator("#chat-form button[type=submit]").click();
    await page.locator("#chat-made").waitFor({ state: "visible" });
    const message = (await page.locator("#chat-made-message").innerText()).trim();
    assert.match(message, /^\/start [A-Z2-9]{8}$/);
    const code = message.split(" ")[1]!;
    assert.equal(await page.locator("#chat-made-link").getAttribute("href"), `https://t.me/careflow_bot?start=${code}`);
    assert.match(await page.locator("#chat-made-waiting").innerText(), /Waiting for Carla to send it/);
    // The list of codes not sent yet is read again after the code is made: waited for, not read at once.
    await page
      .locator("#chat-codes")
      .filter({ hasText: /Carla: emergencies, warnings and information/ })
      .waitFor();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "household-chat-code.png"), fullPage: true });
    await assertAccessible(page, "the Family chat tab with a code");

    chat.sendText(601, message, CARLA);
    await page.locator("#chat-made-waiting").filter({ hasText: "Carla has joined" }).waitFor({ timeout: 20_000 });
    await carlaRow().waitFor();
    assert.match(await carlaRow().innerText(), /Carla\s+601/);
    const ticks = await carlaRow()
      .locator("input[type=checkbox]")
      .evaluateAll((els: any[]) => els.map((e) => `${e.value}:${e.checked}`));
    assert.deepEqual(ticks, ["emergency:true", "warning:true", "info:true", "reminder:false"]);
    const welcome = await eventually("the welcome in Carla's chat", () => textsTo(601)[0], 20_000);
    assert.match(welcome, /^Welcome, Carla! This chat now gets careflow's messages about the household: emergencies, warnings and information\./);
    // The code is used: none waiting (the list is read again after the join is seen).
    await page.locator("#chat-codes-box").waitFor({ state: "hidden" });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "household-chat-joined.png"), fullPage: true });
    await page.locator("#chat-made-done").click();
  });

  it("sends Carla a test message and says it went", async () => {
    await carlaRow().locator("[data-action=test]").click();
    await carlaRow().locator('.test-outcome[data-colour="green"]').waitFor();
    assert.match(await carlaRow().locator(".test-outcome").innerText(), /^Sent .*: ask Carla whether it arrived\.$/);
    assert.match(textsTo(601).at(-1)!, /^This is a test message from careflow for Carla/);
  });

  it("changes Carla's levels with a tick; a warning then reaches her chat, not Anna's (emergencies only)", async () => {
    await carlaRow().locator("input[data-level=info]").uncheck();
    await page.locator("#notice").filter({ hasText: "Carla now gets: emergencies and warnings." }).waitFor();
    const carla = ((await s.t.get("/api/v1/chat/relatives")).body as Array<{ chat_id: string; alert_levels: string[] }>).find((r) => r.chat_id === "601");
    assert.deepEqual(carla?.alert_levels, ["emergency", "warning"]);
    await s.screenshot(page, "household-chat-levels");
    await assertAccessible(page, "the Family chat tab's levels");

    const rule = await importRule(s.t, {
      rule: { name: "Garden", trigger_type: "manual" },
      steps: [
        {
          label: "Tell",
          step_type: "notification",
          config: { alert_level: "warning", channels: ["chat_app"], chat_app_template: "Rose is still in the garden" },
        },
      ],
    });
    const ran = await s.t.post(`/api/v1/rules/${rule}/execute`, {});
    assert.ok(ran.status < 300, ran.text);
    await eventually("the warning in Carla's chat", () => textsTo(601).includes("Rose is still in the garden") || undefined, 20_000);
    assert.equal(textsTo(1001).includes("Rose is still in the garden"), false, "Anna takes emergencies only");
  });

  it("picks the language the bot writes to Carla in; her test message then comes in German", async () => {
    const picker = carlaRow().locator("select[data-field=language]");
    assert.deepEqual(await picker.locator("option").evaluateAll((els: any[]) => els.map((e) => e.textContent)), [
      "The household's",
      "Deutsch",
      "English",
      "हिन्दी",
    ]);
    await picker.selectOption("de");
    await page.locator("#notice").filter({ hasText: "The bot now writes to Carla in: Deutsch." }).waitFor();
    await carlaRow().locator("[data-action=test]").click();
    await eventually(
      "the German test message",
      () => /^Dies ist eine Testnachricht von careflow für Carla/.test(textsTo(601).at(-1) ?? "") || undefined,
      20_000,
    );
    assert.equal(await carlaRow().locator("select[data-field=language]").inputValue(), "de");
    await s.screenshot(page, "household-chat-language");
    await assertAccessible(page, "the Family chat tab's language pickers");
  });

  it("a caregiver reads the tab: the relatives and their levels in words, no buttons, no form", async () => {
    const nurse = await signIn(KEYS.caregiver);
    const row = nurse.locator('#chat-relatives tbody tr[data-chat-id="601"]');
    await row.waitFor();
    assert.match(await row.innerText(), /Emergencies and warnings/);
    assert.match(await row.innerText(), /Deutsch/);
    assert.equal(await row.locator("button, input, select").count(), 0);
    assert.equal(await nurse.locator("#chat-form").isVisible(), false);
    await nurse.screenshot({ path: path.join(SCREENSHOT_DIR, "household-chat-caregiver.png"), fullPage: true });
    await assertAccessible(nurse, "the Family chat tab for a caregiver");
  });
});
