/**
 * The chat channel against the fake chat service (Bot API): targets by level, the scaled
 * photo, buttons and replies that acknowledge and edit every message, the escalation that
 * stops, rate limits, errors and an outage that leaves the other channels escalating.
 */
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { checkConfig } from "../../../../../nodes/_kit/config";
import { handler } from "../../../../../nodes/steps/notification/notification.handler";
import { spec } from "../../../../../nodes/steps/notification/notification.node";
import { getAlert, listAlerts } from "../../../../../runtime/household/alerts/alerts.service";
import { startEscalation, type EscalationHandle } from "../../../../../runtime/care/services/notify/escalation";
import { startChat, type ChatLink } from "../../../../../runtime/care/services/chat/chat.service";
import type { SettingsInput } from "../../../../../settings";
import { startFakeChat, type ChatUser, type FakeChat } from "../../../../fakes/chat-server";
import { MIN, notificationInput, notifyEnv, type NotifyEnv } from "../notify/notify-support";
import { eventually } from "../../../../support/eventually";
import { trigger } from "../../../../nodes/handler-context";
import { careServices } from "../../../../../runtime/care/services/care-services";

const TOKEN = "42:test-token";
const ANNA: ChatUser = { id: 501, is_bot: false, first_name: "Anna" };
const BEN: ChatUser = { id: 502, is_bot: false, first_name: "Ben" };
const CHATS = { anna: 1001, ben: 1002, night: 1003 };

type Buttons = { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
const labels = (markup: unknown) => ((markup as Buttons | null)?.inline_keyboard ?? []).flat().map((b) => b.text);

describe("chat app channel (fake Bot API)", function () {
  this.timeout(30_000);
  let chat: FakeChat;
  let env: NotifyEnv;
  let link: ChatLink;
  let esc: EscalationHandle;

  async function start(extra: Partial<NonNullable<SettingsInput["notifications"]>["chat_app"]> = {}, chatOverride?: FakeChat) {
    chat = chatOverride ?? (await startFakeChat({ token: TOKEN, chats: Object.values(CHATS).map((id) => ({ id, type: "private" as const })) }));
    env = await notifyEnv({
      notifications: {
        chat_app: {
          api_base_url: chat.url,
          token: TOKEN,
          poll_timeout_seconds: 1,
          max_image_side: 640,
          targets: [
            { name: "Anna", chat_id: CHATS.anna, alert_levels: ["emergency", "warning"] },
            { name: "Ben", chat_id: String(CHATS.ben), alert_levels: [] },
            { name: "Night nurse", chat_id: CHATS.night, alert_levels: ["info"] },
          ],
          ...extra,
        },
      },
    });
    link = startChat(env.ctx);
    env.ctx.chat = link;
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
  }

  afterEach(async () => {
    await esc?.stop();
    await link?.stop();
    await chat?.close();
    await env?.close();
  });

  async function frame(width: number, height: number): Promise<string> {
    const rel = "media/cam1/frame-1.jpg";
    await fs.mkdir(path.join(env.ctx.dataDir, "media/cam1"), { recursive: true });
    const jpg = await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
      .jpeg()
      .toBuffer();
    await fs.writeFile(path.join(env.ctx.dataDir, rel), jpg);
    return rel;
  }

  async function notify(level: string, text: string, channels = ["chat_app"], mediaPaths: string[] = []) {
    const check = checkConfig(spec, { alert_level: level, channels, message_template: "popup", chat_app_template: text });
    assert.ok(check.ok, JSON.stringify(check));
    const input = notificationInput({}, { trigger: trigger({ trigger_type: "sensor_event", room_name: "Hall", sensor_id: "cam1", media_paths: mediaPaths }) });
    const out = await handler(env.hctx(), input, check.config as never);
    await esc.settled();
    const [alert] = await listAlerts(env.ctx, { limit: 1, offset: 0 });
    return { out, alertId: alert?.id };
  }

  const textMessages = (chatId?: number) => chat.messages.filter((m) => m.text !== null && m.photo === null && (chatId === undefined || m.chat_id === chatId));

  const until = async (what: string, pred: () => boolean | Promise<boolean>, ms = 5000): Promise<void> => {
    await eventually(what, pred, ms);
  };

  it("sends an emergency only to the targets whose levels include it, with the frame scaled to max_image_side and the buttons", async () => {
    await start();
    const rel = await frame(1600, 1200);
    const { out, alertId } = await notify("emergency", "Rose fell in the hall", ["chat_app"], [rel]);
    assert.equal(out.data?.notification_dispatched, true);
    assert.deepEqual(new Set(chat.messages.map((m) => m.chat_id)), new Set([CHATS.anna, CHATS.ben]), "not the night nurse (info only)");
    const photos = chat.messages.filter((m) => m.photo);
    assert.equal(photos.length, 2);
    for (const p of photos) assert.deepEqual([p.photo!.width, p.photo!.height], [640, 480]);
    for (const m of textMessages()) {
      assert.equal(m.text, "Rose fell in the hall");
      assert.deepEqual(labels(m.reply_markup), ["I'm on it", "Resolved"]);
    }
    const alert = await getAlert(env.ctx, alertId!);
    const delivered = alert.history!.filter((h) => h.channel === "chat_app" && h.event === "delivered" && h.target);
    assert.deepEqual(delivered.map((h) => h.target).sort(), ["Anna", "Ben"]);
    assert.match(delivered[0]!.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, "to the second");
  });

  it("an info message goes to the info targets, without buttons", async () => {
    await start();
    await notify("info", "Rose had breakfast");
    assert.deepEqual(chat.messages.map((m) => m.chat_id).sort(), [CHATS.ben, CHATS.night]);
    for (const m of chat.messages) assert.equal(m.reply_markup, null);
  });

  it("a button press acknowledges the alert, stops escalation and edits every message in every chat", async () => {
    await start();
    const { alertId } = await notify("emergency", "Rose fell");
    const annaMsg = textMessages(CHATS.anna)[0]!;
    chat.pressButton(CHATS.anna, annaMsg.message_id, `ack:${alertId}`, ANNA);
    await until("the edits", () => textMessages().every((m) => m.edited_at !== null));
    const alert = await getAlert(env.ctx, alertId!);
    assert.equal(alert.assistance_needed, true);
    assert.equal(alert.next_escalation_at, null, "escalation stopped");
    assert.equal(alert.actions[0]!.actor, "Anna");
    for (const m of textMessages()) {
      assert.match(m.text!, /^Rose fell\n\n.*Anna is on it, \d\d:\d\d$/);
      assert.deepEqual(labels(m.reply_markup), ["Resolved"], "the other relative can still resolve it");
    }
    await until("the toast", () => chat.callbackAnswers.length === 1);
    // Ben pressing "I'm on it" now is told Anna is.
    const benMsg = textMessages(CHATS.ben)[0]!;
    chat.pressButton(CHATS.ben, benMsg.message_id, `ack:${alertId}`, BEN);
    await until("Ben's toast", () => chat.callbackAnswers.length === 2);
    assert.equal(chat.callbackAnswers[1]!.text, "Anna is already on it");
    // No re-send after the acknowledgement.
    const before = chat.messages.length;
    env.clock.advance(30 * MIN);
    await esc.settled();
    assert.equal(chat.messages.length, before);
    // Resolved by Ben: every message says so, no buttons left.
    chat.pressButton(CHATS.ben, benMsg.message_id, `res:${alertId}`, BEN);
    await until("resolved edits", () => textMessages().every((m) => /Resolved by Ben/.test(m.text ?? "")));
    for (const m of textMessages()) assert.deepEqual(labels(m.reply_markup), []);
    const done = await getAlert(env.ctx, alertId!);
    assert.equal(done.resolved, true);
    assert.equal(done.resolved_by, "Ben");
    const events = done.history!.map((h) => h.event);
    for (const e of ["delivered", "acknowledged", "resolved", "edited"]) assert.ok(events.includes(e), `history has ${e}: ${events.join(",")}`);
  });

  it("in each chat's language (issue 49): German buttons to a German-speaking relative; her press notes it in German in her chat and in English in the others", async () => {
    await start({
      targets: [
        { name: "Anna", chat_id: CHATS.anna, alert_levels: ["emergency", "warning"], language: "de" },
        { name: "Ben", chat_id: String(CHATS.ben), alert_levels: [] },
        { name: "Night nurse", chat_id: CHATS.night, alert_levels: [], language: "hi" },
      ],
    });
    const { alertId } = await notify("emergency", "Rose ist im Flur gestürzt");
    assert.deepEqual(labels(textMessages(CHATS.anna)[0]!.reply_markup), ["Ich kümmere mich", "Erledigt"]);
    assert.deepEqual(labels(textMessages(CHATS.ben)[0]!.reply_markup), ["I'm on it", "Resolved"]);
    assert.deepEqual(labels(textMessages(CHATS.night)[0]!.reply_markup), ["ज़िम्मेदारी मेरी", "हल हो गया"]);
    chat.pressButton(CHATS.anna, textMessages(CHATS.anna)[0]!.message_id, `ack:${alertId}`, ANNA);
    await until("the edits", () => textMessages().every((m) => m.edited_at !== null));
    assert.match(textMessages(CHATS.anna)[0]!.text!, /^Rose ist im Flur gestürzt\n\n🏃 Anna kümmert sich, \d\d:\d\d$/);
    assert.deepEqual(labels(textMessages(CHATS.anna)[0]!.reply_markup), ["Erledigt"]);
    assert.match(textMessages(CHATS.ben)[0]!.text!, /^Rose ist im Flur gestürzt\n\n🏃 Anna is on it, \d\d:\d\d$/, "the family's words stay as written");
    assert.deepEqual(labels(textMessages(CHATS.ben)[0]!.reply_markup), ["Resolved"]);
    assert.match(textMessages(CHATS.night)[0]!.text!, /\n\n🏃 Anna ने ज़िम्मेदारी ली, \d\d:\d\d$/);
    await until("her toast", () => chat.callbackAnswers.length === 1);
    assert.equal(chat.callbackAnswers[0]!.text, "Danke: Die anderen sehen, dass Sie sich kümmern");
    // Ben resolves it: each chat reads who did, in its own words.
    chat.pressButton(CHATS.ben, textMessages(CHATS.ben)[0]!.message_id, `res:${alertId}`, BEN);
    await until(
      "resolved edits",
      () => /Resolved by Ben/.test(textMessages(CHATS.ben)[0]!.text ?? "") && /Erledigt von Ben/.test(textMessages(CHATS.anna)[0]!.text ?? ""),
    );
    assert.match(textMessages(CHATS.anna)[0]!.text!, /✅ Erledigt von Ben, \d\d:\d\d \(Anna hat sich gekümmert, \d\d:\d\d\)$/);
    // His toast answers his press; the chats' edits may come first.
    await until("his toast", () => chat.callbackAnswers.length === 2);
    assert.equal(chat.callbackAnswers[1]!.text, "Marked resolved");
  });

  it("a reply to the alert's message acknowledges it; 'resolved' resolves it", async () => {
    await start();
    const { alertId } = await notify("warning", "Bathroom 40 minutes");
    const benMsg = textMessages(CHATS.ben)[0]!;
    chat.sendText(CHATS.ben, "on my way", BEN, benMsg.message_id);
    await until("acknowledged", async () => (await getAlert(env.ctx, alertId!)).assistance_needed);
    await until("edits", () => textMessages().every((m) => /Ben is on it/.test(m.text ?? "")));
    const a = await getAlert(env.ctx, alertId!);
    assert.equal(a.actions[0]!.note, "on my way");
    chat.sendText(CHATS.anna, "resolved, she is fine", ANNA, textMessages(CHATS.anna)[0]!.message_id);
    await until("resolved", async () => (await getAlert(env.ctx, alertId!)).resolved);
  });

  it("a reply in Hindi resolves it (issue 49): 'हो गया' in a Hindi chat, and the notes say so in each chat's language", async () => {
    await start({
      targets: [
        { name: "Anna", chat_id: CHATS.anna, alert_levels: [], language: "hi" },
        { name: "Ben", chat_id: String(CHATS.ben), alert_levels: [] },
      ],
    });
    const { alertId } = await notify("warning", "बाथरूम में 40 मिनट");
    chat.sendText(CHATS.anna, "हो गया, माँ ठीक हैं", ANNA, textMessages(CHATS.anna)[0]!.message_id);
    await until("resolved", async () => (await getAlert(env.ctx, alertId!)).resolved);
    assert.equal((await getAlert(env.ctx, alertId!)).resolved_by, "Anna");
    await until("edits", () => textMessages().every((m) => m.edited_at !== null));
    assert.match(textMessages(CHATS.anna)[0]!.text!, /\n\n✅ Anna ने हल किया, \d\d:\d\d$/);
    assert.match(textMessages(CHATS.ben)[0]!.text!, /\n\n✅ Resolved by Anna, \d\d:\d\d$/);
  });

  it("a reply to the alert's photo acknowledges it too", async () => {
    await start();
    const rel = await frame(320, 240);
    const { alertId } = await notify("emergency", "Rose fell", ["chat_app"], [rel]);
    const photo = chat.messages.find((m) => m.photo && m.chat_id === CHATS.anna)!;
    chat.sendText(CHATS.anna, "I see her, going", ANNA, photo.message_id);
    await until("acknowledged", async () => (await getAlert(env.ctx, alertId!)).assistance_needed);
    await until("edits", () => textMessages().every((m) => /Anna is on it/.test(m.text ?? "")));
  });

  it("an alert acknowledged elsewhere (the API, the terminal) edits the chats too", async () => {
    await start();
    const { alertId } = await notify("emergency", "Rose fell");
    const { actOnAlert } = await import("../../../../../runtime/household/alerts/alerts.service");
    await actOnAlert(env.ctx, alertId!, { action: "dismiss" }, "terminal");
    await until("edits", () => textMessages().every((m) => /Resolved by terminal/.test(m.text ?? "")));
  });

  it("ignores buttons and replies from chats that are not targets", async () => {
    await start();
    const { alertId } = await notify("emergency", "Rose fell");
    const m = textMessages(CHATS.anna)[0]!;
    // A stranger's chat forwarding the callback data.
    chat.sendText(999, "/status", { id: 9, is_bot: false, first_name: "Mallory" });
    chat.pressButton(CHATS.anna, m.message_id, `ack:${alertId}`, ANNA);
    await until("ack", async () => (await getAlert(env.ctx, alertId!)).assistance_needed);
    assert.equal((await getAlert(env.ctx, alertId!)).actions.length, 1);
  });

  it("retries a 429 after its retry_after", async () => {
    await start();
    chat.failNext("sendMessage", { error_code: 429, description: "Too Many Requests", retry_after: 1 });
    const t0 = Date.now();
    const { out } = await notify("emergency", "Rose fell");
    assert.equal(out.data?.notification_dispatched, true);
    assert.equal(textMessages().length, 2, "both delivered in the end");
    assert.ok(Date.now() - t0 >= 900, "waited retry_after");
    assert.equal(chat.calls.filter((c) => c.method === "sendMessage" && c.status === 429).length, 1);
  });

  it("a retry_after beyond the limit, a chat not found and a too long message are failed receipts with the reason", async () => {
    await start({
      max_retry_after_seconds: 2,
      targets: [
        { name: "Anna", chat_id: CHATS.anna, alert_levels: [] },
        { name: "Gone", chat_id: 4242, alert_levels: [] },
      ],
    });
    chat.failNext("sendMessage", { error_code: 429, description: "Too Many Requests", retry_after: 60 });
    const { alertId } = await notify("emergency", "x".repeat(5000));
    const alert = await getAlert(env.ctx, alertId!);
    const lines = alert.history!.filter((h) => h.channel === "chat_app" && h.target);
    const gone = lines.find((h) => h.target === "Gone")!;
    assert.equal(gone.event, "failed");
    assert.match(gone.detail!, /chat not found/);
    // Anna's send: either the 429 (when hers came first) or delivered, truncated to the limit.
    const anna = lines.find((h) => h.target === "Anna")!;
    assert.ok(anna.event === "delivered" || /rate limited \(429, retry after 60 s\)/.test(anna.detail!), JSON.stringify(anna));
    for (const m of textMessages()) assert.ok([...m.text!].length <= 4096);
  });

  it("during a chat outage the alert keeps escalating on the other channels and the failed receipts are recorded", async () => {
    await start();
    await chat.stop();
    const { alertId } = await notify("emergency", "Rose fell", ["chat_app", "pwa_popup_text"]);
    assert.equal(env.hub.frames.length, 1, "the popup went out");
    env.clock.advance(5 * MIN);
    await esc.settled();
    assert.equal(env.hub.frames.length, 2, "re-sent on the popup");
    const alert = await getAlert(env.ctx, alertId!);
    assert.equal(alert.escalation_count, 1);
    const failed = alert.history!.filter((h) => h.channel === "chat_app" && h.event === "failed");
    assert.ok(
      failed.some((h) => h.escalation === 0 && /unreachable/.test(h.detail ?? "")),
      JSON.stringify(failed),
    );
    assert.ok(
      failed.some((h) => h.escalation === 1),
      "the re-send's failure too",
    );
    // Back up: the next re-send reaches the chats.
    await chat.restart();
    env.clock.advance(5 * MIN);
    await esc.settled();
    assert.equal(textMessages().length, 2);
  });

  it("the ladder: first the nearest relative, everyone from the first re-send after everyone_after_minutes", async () => {
    await start({ first_targets: ["Anna"], everyone_after_minutes: 5 });
    const { alertId } = await notify("emergency", "Rose fell");
    assert.deepEqual(
      textMessages().map((m) => m.chat_id),
      [CHATS.anna],
    );
    env.clock.advance(5 * MIN);
    await esc.settled();
    assert.deepEqual(
      textMessages()
        .map((m) => m.chat_id)
        .sort(),
      [CHATS.anna, CHATS.anna, CHATS.ben],
    );
    const alert = await getAlert(env.ctx, alertId!);
    assert.ok(alert.history!.some((h) => h.target === "Ben" && h.escalation === 1 && h.event === "delivered"));
  });

  it("without a token the channel says so", async () => {
    chat = await startFakeChat({ token: TOKEN, chats: [] });
    env = await notifyEnv({ notifications: { chat_app: { api_base_url: chat.url, targets: [{ name: "Anna", chat_id: 1, alert_levels: [] }] } } });
    link = startChat(env.ctx);
    env.ctx.chat = link;
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    const { out } = await notify("emergency", "Rose fell");
    assert.equal(out.data?.notification_dispatched, false);
    assert.deepEqual(out.data?.notification_channels, { chat_app: false });
  });
});
