/**
 * The first start of a real household (issue 43 §3) in a real Chromium, on an empty store,
 * against the fake hub and the fake chat; nothing typed in a terminal. The one-time set-up link
 * `npm start` prints opens the guided set-up: the senior's name, the rooms imported from the hub,
 * a relative joining with `/start CODE`, the tablet's QR code (its key made there: the settings
 * file has no web app key, as in a real household), the Night wandering starter rule;
 * the set-up finishes on the tabs with the family's own admin key, the link then refused. The
 * hallway's hub sensor turning on then fires the rule and its alert reaches the relative's chat.
 * The household's time zone is chosen so that it is night now (the rule watches 23:00 to 05:00).
 * Wall time from the link opened to the alert is measured (well under 10 minutes).
 * Screenshots: test-output/screenshots/first-start-*.png.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { assertAccessible } from "../support/a11y";
import { startEditorSession, type EditorSession } from "../support/browser";
import { eventually } from "../support/eventually";
import { testAuthSettings } from "../support/test-app";
import { startFakeHub, type FakeHub } from "../fakes/hub-server";
import { startFakeChat, type ChatUser, type FakeChat } from "../fakes/chat-server";
import { firstStartToken } from "../../runtime/app/first-start/setup-link";

const HUB_TOKEN = "first-start-hub-token";
const CHAT_TOKEN = "88:first-start-token";
const ANNA: ChatUser = { id: 701, is_bot: false, first_name: "Anna" };

/** An IANA zone where it is just past midnight now: `Etc/GMT-8` is UTC+8. */
function nightZone(now = new Date()): string {
  let offset = (24 - now.getUTCHours()) % 24;
  if (offset > 12) offset -= 24;
  return offset === 0 ? "UTC" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}

describe("browser: the first start of a real household, set up on the Household page", function () {
  this.timeout(300_000);
  let s: EditorSession;
  let hub: FakeHub;
  let chat: FakeChat;
  let page: Page;
  let token: string;
  let started = 0;

  const shot = (name: string) => s.screenshot(page, `first-start-${name}`);
  const textsTo = (chatId: number) => chat.messages.filter((m) => m.chat_id === chatId).map((m) => m.text ?? "");

  before(async function () {
    hub = await startFakeHub({
      token: HUB_TOKEN,
      areas: [
        { area_id: "hallway", name: "Hallway" },
        { area_id: "bathroom", name: "Bathroom" },
        { area_id: "bedroom", name: "Bedroom" },
      ],
      states: [
        { entity_id: "binary_sensor.hall_motion", state: "off", attributes: { device_class: "motion", friendly_name: "Hall motion" } },
        { entity_id: "binary_sensor.bath_motion", state: "off", attributes: { device_class: "motion", friendly_name: "Bath motion" } },
        { entity_id: "binary_sensor.bed_motion", state: "off", attributes: { device_class: "motion", friendly_name: "Bed motion" } },
      ],
      entityRegistry: [
        { entity_id: "binary_sensor.hall_motion", area_id: "hallway", device_id: null },
        { entity_id: "binary_sensor.bath_motion", area_id: "bathroom", device_id: null },
        { entity_id: "binary_sensor.bed_motion", area_id: "bedroom", device_id: null },
      ],
    });
    chat = await startFakeChat({ token: CHAT_TOKEN, chats: [] });
    // A real household (CAREFLOW_DEMO=0): the settings file has no web app key (the tablet's is made in the set-up).
    const auth = testAuthSettings();
    auth.api_keys = auth.api_keys!.filter((k) => !k.permissions.includes("webapp"));
    s = await startEditorSession(this, {
      settings: {
        auth,
        app: { timezone: nightZone() },
        hub: { url: hub.url, token: HUB_TOKEN },
        notifications: { chat_app: { api_base_url: chat.url, token: CHAT_TOKEN, poll_timeout_seconds: 1, targets: [] } },
      },
    });
    // What `npm start` prints for an empty household (main.ts): its one-time link.
    token = (await firstStartToken(s.t.app.ctx))!;
    assert.ok(token);
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors on the page");
    await s?.close();
    await chat?.close();
    await hub?.close();
  });

  it("the set-up link opens the guided set-up instead of the tabs, and takes itself off the address", async () => {
    started = Date.now();
    page = await (await s.browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    page.on("pageerror", (e) => s.pageErrors.push(e.message));
    await page.goto(`${s.t.baseUrl}/household/?setup=${encodeURIComponent(token)}`);
    await page.locator("#setup-senior").waitFor({ state: "visible" });
    assert.equal(await page.locator("#tabs").isVisible(), false);
    assert.ok(!page.url().includes("setup="), page.url());
    assert.match(await page.locator("#setup-progress").innerText(), /Step 1 of 5/);
    await shot("1-senior");
    await assertAccessible(page, "the guided set-up (1-senior)");
  });

  it("the senior's name", async () => {
    await page.locator("#setup-senior-name").fill("Grandma Edith");
    await page.locator("#setup-senior-form button[type=submit]").click();
    await page.locator("#setup-rooms").waitFor({ state: "visible" });
    const people = (await s.t.get("/api/v1/persons")).body as Array<{ display_name: string }>;
    assert.deepEqual(
      people.map((p) => p.display_name),
      ["Grandma Edith"],
    );
  });

  it("a reload keeps the set-up (the link's key is still the page's); a step is skipped", async () => {
    await page.reload();
    await page.locator("#setup-senior").waitFor({ state: "visible" });
    await page.locator("#setup-senior button.skip").click();
    await page.locator("#setup-rooms").waitFor({ state: "visible" });
  });

  it("the rooms, imported from the hub", async () => {
    await page.locator("#setup-import").click();
    await page.locator("#setup-import-said.ok").waitFor();
    assert.match(await page.locator("#setup-import-said").innerText(), /Rooms: 3 added\. Sensors: 3 added/);
    await page.locator("#setup-room-list li", { hasText: "Hallway (1 sensor)" }).waitFor();
    await shot("2-rooms");
    await assertAccessible(page, "the guided set-up (2-rooms)");
    await page.locator("#setup-rooms-next").click();
    await page.locator("#setup-relatives").waitFor({ state: "visible" });
  });

  it("a relative for alerts: Anna sends /start CODE to the bot and the page sees her join", async () => {
    await page.locator("#setup-relative-name").fill("Anna");
    await page.locator("#setup-relative-form button[type=submit]").click();
    await page.locator("#setup-code").waitFor({ state: "visible" });
    const message = (await page.locator("#setup-code-message").innerText()).trim();
    assert.match(message, /^\/start [A-Z2-9]{8}$/);
    await shot("3-relative-code");
    await assertAccessible(page, "the guided set-up (3-relative-code)");
    chat.sendText(701, message, ANNA);
    await page.locator("#setup-code-waiting").filter({ hasText: "Anna has joined" }).waitFor({ timeout: 20_000 });
    await shot("3-relative-joined");
    await page.locator("#setup-relatives-next").click();
    await page.locator("#setup-tablet").waitFor({ state: "visible" });
  });

  it("the tablet's QR code: with no web app key in the settings, the step makes the tablet's key and shows its link once", async () => {
    await page.locator("#setup-tablet-box").filter({ hasText: "The tablet has no link yet." }).waitFor();
    await shot("4-tablet-no-link");
    await page.locator("#setup-tablet-make").click();
    await page.locator("#setup-tablet-box img").waitFor();
    assert.match(await page.locator("#setup-tablet-box").innerText(), /\/app\/#key=[^\s]+/);
    assert.match(await page.locator("#setup-tablet-box").innerText(), /shown only this once/);
    const keys = (await s.t.get("/api/v1/admin/keys")).body as Array<{ name: string; role: string | null; revoked: boolean }>;
    assert.ok(
      keys.some((k) => k.name === "Senior's tablet" && k.role === "webapp" && !k.revoked),
      JSON.stringify(keys),
    );
    await shot("4-tablet");
    await assertAccessible(page, "the guided set-up (4-tablet)");
    await page.locator("#setup-tablet-next").click();
    await page.locator("#setup-rules").waitFor({ state: "visible" });
  });

  it("the starter rules: Night wandering chosen, made for the hallway's sensor; the set-up lands on the tabs", async () => {
    await page.locator('#setup-rule-choices input[value="night-wandering"]').waitFor();
    await shot("5-rules");
    await assertAccessible(page, "the guided set-up (5-rules)");
    await page.locator('#setup-rule-choices input[value="night-wandering"]').check();
    await page.locator("#setup-rules-form button[type=submit]").click();
    await page.locator("#setup-done").waitFor({ state: "visible" });
    assert.equal(await page.locator("#tabs").isVisible(), true);
    assert.equal(await page.locator("#setup").isVisible(), false);
    const adminKey = (await page.locator("#setup-admin-key").innerText()).trim();
    assert.equal((await s.t.get("/api/v1/admin/keys", adminKey)).status, 200, "the family's own admin key works");
    assert.equal((await s.t.get("/api/v1/rooms", token)).status, 401, "the set-up link no longer works");
    await shot("6-done");
    await assertAccessible(page, "the guided set-up (6-done)");
    const rules = (await s.t.get("/api/v1/rules")).body as Array<{ name: string; id: number }>;
    const night = rules.find((r) => r.name === "Night wandering");
    assert.ok(night, JSON.stringify(rules));
  });

  it("the hallway's sensor turns on at night: the rule's alert reaches Anna's chat", async () => {
    hub.setState("binary_sensor.hall_motion", "on", { device_class: "motion", friendly_name: "Hall motion" });
    const alert = await eventually("the alert in Anna's chat", () => textsTo(701).find((t) => /Grandma Edith is up and moving in the Hallway/.test(t)), 60_000);
    const took = (Date.now() - started) / 1000;
    console.log(`      first start: from the set-up link opened to the first alert in the relative's chat: ${took.toFixed(1)} s`);
    assert.ok(took < 600, `took ${took} s`);
    assert.match(alert, /Grandma Edith is up and moving in the Hallway/);
  });
});
