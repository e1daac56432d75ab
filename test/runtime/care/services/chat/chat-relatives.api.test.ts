/**
 * Relatives added with a one-time code (issue 43 §1, Family chat) through the real app against
 * the fake chat service: a code made on the page's API links the chat that sends `/start CODE`
 * once, answering it with a welcome; a used, expired (ManualClock) or wrong code gets a polite
 * answer and changes nothing; a linked relative's levels change
 * live, a test message reaches it, two chats racing for one code link one, and a second app on
 * the same database sees it (the code and the relative are in the database, not in one
 * instance's memory). Runs on both stores.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { migratedDatabase, type TestDatabase } from "../../../../support/test-db";
import { eventually } from "../../../../support/eventually";
import { startFakeChat, type ChatUser, type FakeChat } from "../../../../fakes/chat-server";
import { redeemCode } from "../../../../../runtime/care/services/chat/relatives.service";

const TOKEN = "77:relatives-test-token";
const CARLA: ChatUser = { id: 601, is_bot: false, first_name: "Carla" };
const MALLORY: ChatUser = { id: 666, is_bot: false, first_name: "Mallory" };

describe("chat relatives: one-time codes through the app (fake Bot API)", function () {
  this.timeout(60_000);
  let chat: FakeChat;
  let t: TestApp;
  let clock: ManualClock;
  let db: TestDatabase;
  const others: TestApp[] = [];

  const chatSettings = (mode: "polling" | "webhook") => ({
    api_base_url: chat.url,
    token: TOKEN,
    mode,
    poll_timeout_seconds: 1,
    targets: [{ name: "Anna", chat_id: 1001, alert_levels: ["emergency"] }],
  });

  beforeEach(async () => {
    chat = await startFakeChat({ token: TOKEN, chats: [{ id: 1001, type: "private" }] });
    clock = new ManualClock(Date.parse("2026-06-01T06:14:00Z"));
    db = await migratedDatabase();
    t = await startTestApp({ clock, database: db, settings: { notifications: { chat_app: chatSettings("polling") } } });
  });
  afterEach(async () => {
    for (const o of others.splice(0)) await o.close();
    await t?.close();
    await db?.drop();
    await chat?.close();
  });

  const answersTo = (chatId: number) => chat.messages.filter((m) => m.chat_id === chatId).map((m) => m.text ?? "");
  const relatives = async (app = t) => (await app.get("/api/v1/chat/relatives", KEYS.caregiver)).body as Array<Record<string, unknown>>;
  const makeCode = async (body: unknown) => {
    const made = await t.post("/api/v1/chat/link-codes", body);
    assert.equal(made.status, 201, made.text);
    return made.body as { id: number; code: string; message: string; link: string | null; expires_at: string };
  };

  it("says whether the bot token works: the bot's name and username", async () => {
    const bot = await t.get("/api/v1/chat/bot", KEYS.caregiver);
    assert.equal(bot.status, 200, bot.text);
    assert.deepEqual(
      { ...bot.body, part_state: undefined },
      { configured: true, ok: true, name: "careflow", username: "careflow_bot", detail: null, mode: "polling", part_state: undefined },
    );
    chat.failNext("getMe", { error_code: 401, description: "Unauthorized" });
    const refused = await t.get("/api/v1/chat/bot");
    assert.equal(refused.body.ok, false);
    assert.match(refused.body.detail, /token was refused \(401\)/);
  });

  it("a valid code links the chat once, with a welcome; reused, the code is refused politely", async () => {
    const code = await makeCode({ name: "Carla", alert_levels: ["emergency", "warning"] });
    assert.match(code.code, /^[A-Z2-9]{8}$/);
    assert.equal(code.message, `/start ${code.code}`);
    assert.equal(code.link, `https://t.me/careflow_bot?start=${code.code}`);
    assert.equal(code.expires_at, "2026-06-01T06:44:00.000Z", "30 minutes");
    assert.equal((await t.get("/api/v1/chat/link-codes", KEYS.caregiver)).body.length, 1, "pending, without its code");
    assert.equal((await t.get("/api/v1/chat/link-codes")).body[0].code, undefined);

    chat.sendText(601, `/start ${code.code.toLowerCase()}`, CARLA);
    await eventually("Carla's welcome", () => answersTo(601).length === 1 || undefined);
    assert.match(answersTo(601)[0]!, /^Welcome, Carla! This chat now gets careflow's messages about the household: emergencies and warnings\./);
    const carla = (await relatives()).find((r) => r.chat_id === "601");
    assert.deepEqual(carla, {
      name: "Carla",
      chat_id: "601",
      alert_levels: ["emergency", "warning"],
      language: null,
      source: "page",
      changed_on_page: false,
      added_by: "test admin",
      added_at: "2026-06-01T06:14:00.000Z",
    });
    assert.equal((await t.get("/api/v1/chat/link-codes")).body.length, 0, "used: no longer pending");

    // The same code again, from another chat: refused, nothing changes.
    chat.sendText(666, `/start ${code.code}`, MALLORY);
    await eventually("Mallory's answer", () => answersTo(666).length === 1 || undefined);
    assert.match(answersTo(666)[0]!, /^Sorry, that code does not work/);
    assert.deepEqual(
      (await relatives()).map((r) => r.chat_id),
      ["1001", "601"],
    );
    const audit = (await t.get("/api/v1/admin/audit")).body as Array<Record<string, unknown>>;
    assert.ok(audit.some((a) => a.target_type === "relative" && a.action === "create" && a.target_name === "Carla" && a.actor === "test admin"));
  });

  it("two chats using one code at the same moment: one is linked, the other refused", async () => {
    const code = await makeCode({ name: "Carla" });
    const [a, b] = await Promise.all([redeemCode(t.app.ctx, code.code, "701"), redeemCode(t.app.ctx, code.code, "702")]);
    assert.equal([a, b].filter(Boolean).length, 1);
    const linked = (await relatives()).filter((r) => r.chat_id === "701" || r.chat_id === "702");
    assert.equal(linked.length, 1);
  });

  it("an expired code (ManualClock past 30 minutes) and a wrong code change nothing; /start without a code says how", async () => {
    const code = await makeCode({ name: "Carla" });
    clock.advance(30 * 60_000 + 1);
    assert.equal((await t.get("/api/v1/chat/link-codes")).body.length, 0, "expired: not pending");
    chat.sendText(601, `/start ${code.code}`, CARLA);
    chat.sendText(602, "/start ZZZZ2222", { id: 602, is_bot: false, first_name: "Dora" });
    chat.sendText(603, "/start", { id: 603, is_bot: false, first_name: "Emil" });
    await eventually("three answers", () => (answersTo(601).length && answersTo(602).length && answersTo(603).length) || undefined);
    assert.match(answersTo(601)[0]!, /older than 30 minutes/);
    assert.match(answersTo(602)[0]!, /^Sorry, that code does not work/);
    assert.match(answersTo(603)[0]!, /send the code from careflow's Household page/);
    assert.deepEqual(
      (await relatives()).map((r) => r.chat_id),
      ["1001"],
    );
  });

  it("a linked relative gets its levels' alerts and a test message; its levels change live; a settings chat's levels too, and back", async () => {
    const code = await makeCode({ name: "Carla", alert_levels: ["warning"] });
    chat.sendText(601, `/start ${code.code}`, CARLA);
    await eventually("Carla linked", async () => (await relatives()).some((r) => r.chat_id === "601") || undefined);

    const tested = await t.post("/api/v1/chat/relatives/601/test", {});
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.body.delivered, true);
    assert.match(answersTo(601).at(-1)!, /test message from careflow for Carla: this chat gets warnings\. Nothing has happened\./);

    const changed = await t.request("PATCH", "/api/v1/chat/relatives/601", { body: { alert_levels: ["emergency"] } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.alert_levels, ["emergency"]);
    // The settings file's Anna: her levels changed on the page (a page row), then the change removed.
    const anna = await t.request("PATCH", "/api/v1/chat/relatives/1001", { body: { alert_levels: [] } });
    assert.deepEqual(
      { levels: anna.body.alert_levels, source: anna.body.source, changed: anna.body.changed_on_page },
      { levels: [], source: "settings", changed: true },
    );
    const refusedDelete = await t.request("DELETE", "/api/v1/chat/relatives/1001");
    assert.equal(refusedDelete.status, 204, "removes the page's change");
    assert.deepEqual((await relatives()).find((r) => r.chat_id === "1001")?.alert_levels, ["emergency"], "the file's levels are back");
    const fileOnly = await t.request("DELETE", "/api/v1/chat/relatives/1001");
    assert.equal(fileOnly.status, 409);
    assert.match(fileOnly.body.detail, /^chat_id: '1001' is in the settings file/);

    const removed = await t.request("DELETE", "/api/v1/chat/relatives/601");
    assert.equal(removed.status, 204);
    assert.equal((await t.post("/api/v1/chat/relatives/601/test", {})).status, 404);
  });

  it("a code made for a German-speaking relative welcomes her in German; her language changes on the page, the test message follows", async () => {
    const code = await makeCode({ name: "Carla", alert_levels: ["emergency", "warning"], language: "de-at" });
    chat.sendText(601, `/start ${code.code}`, CARLA);
    await eventually("Carla's welcome", () => answersTo(601).length === 1 || undefined);
    assert.equal(
      answersTo(601)[0],
      "Willkommen, Carla! Dieser Chat bekommt jetzt die Nachrichten von careflow über den Haushalt: Notfälle und Warnungen. " +
        "Wenn ein Alarm kommt, tippen Sie darunter auf „Ich kümmere mich“ oder „Erledigt“ oder antworten Sie darauf, dann sehen die anderen, wer sich kümmert.",
    );
    assert.equal((await relatives()).find((r) => r.chat_id === "601")?.language, "de-AT", "kept in its canonical spelling");
    const hindi = await t.request("PATCH", "/api/v1/chat/relatives/601", { body: { language: "hi" } });
    assert.equal(hindi.status, 200, hindi.text);
    assert.equal(hindi.body.language, "hi");
    await t.post("/api/v1/chat/relatives/601/test", {});
    assert.equal(answersTo(601).at(-1), "यह Carla के लिए careflow का एक परीक्षण संदेश है। इस चैट में आने वाले संदेश: आपात स्थितियाँ और चेतावनियाँ। कुछ नहीं हुआ है।");
    // Back to the household's language (English here); a settings chat's language changes the same way.
    assert.equal((await t.request("PATCH", "/api/v1/chat/relatives/601", { body: { language: null } })).body.language, null);
    await t.post("/api/v1/chat/relatives/601/test", {});
    assert.match(answersTo(601).at(-1)!, /^This is a test message from careflow for Carla/);
    const anna = await t.request("PATCH", "/api/v1/chat/relatives/1001", { body: { language: "de" } });
    assert.deepEqual(
      { language: anna.body.language, levels: anna.body.alert_levels, changed: anna.body.changed_on_page },
      { language: "de", levels: ["emergency"], changed: true },
    );
  });

  it("refuses bad input naming the field, and a caregiver's writes", async () => {
    const bad = await t.post("/api/v1/chat/link-codes", { name: "", alert_levels: ["loud"] });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /name/);
    assert.match(bad.body.detail, /alert_levels/);
    const extra = await t.post("/api/v1/chat/link-codes", { name: "Carla", chat_id: 5 });
    assert.equal(extra.status, 422);
    assert.match(extra.body.detail, /chat_id/);
    const patch = await t.request("PATCH", "/api/v1/chat/relatives/1001", { body: {} });
    assert.equal(patch.status, 422);
    assert.match(patch.body.detail, /alert_levels/);
    for (const language of ["not a tag!", 7, ""]) {
      const badLanguage = await t.request("PATCH", "/api/v1/chat/relatives/1001", { body: { language } });
      assert.equal(badLanguage.status, 422, JSON.stringify(language));
      assert.match(badLanguage.body.detail, /language/);
    }
    const badCodeLanguage = await t.post("/api/v1/chat/link-codes", { name: "Carla", language: "x-" });
    assert.equal(badCodeLanguage.status, 422);
    assert.match(badCodeLanguage.body.detail, /language/);
    assert.equal((await t.post("/api/v1/chat/link-codes", { name: "Carla" }, KEYS.caregiver)).status, 403);
    assert.equal((await t.request("DELETE", "/api/v1/chat/link-codes/999")).status, 404);
  });

  it("works across instances: a code made on one app is used through the other's chat, and both list the relative", async () => {
    // A second app on the same database, in webhook mode (it does not poll): only the database links them.
    const other = await startTestApp({ clock, database: db, settings: { notifications: { chat_app: chatSettings("webhook") } } });
    others.push(other);
    const made = await other.post("/api/v1/chat/link-codes", { name: "Carla" });
    assert.equal(made.status, 201, made.text);
    chat.sendText(601, `/start ${made.body.code}`, CARLA);
    await eventually("Carla linked, seen by the other app", async () => (await relatives(other)).some((r) => r.chat_id === "601") || undefined);
    assert.equal((await other.post("/api/v1/chat/relatives/601/test", {})).body.delivered, true);
  });
});
