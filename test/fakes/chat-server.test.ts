/**
 * The fake Bot API refuses what the real one refuses, so the chat channel's tests cannot pass on
 * a request Telegram would answer with an error: a second poller, a webhook left set, a long
 * caption, long button data, a button press answered twice.
 */
import assert from "node:assert/strict";
import { eventually } from "../support/eventually";
import { startFakeChat, type FakeChat } from "./chat-server";

const TOKEN = "42:fake-test";
const CHAT = 1001;
const ANNA = { id: 501, is_bot: false as const, first_name: "Anna" };

describe("fake chat server (Bot API rules)", function () {
  this.timeout(20_000);
  let chat: FakeChat;
  const call = async (method: string, body: Record<string, unknown> = {}) => {
    const res = await fetch(`${chat.url}/bot${TOKEN}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { ok: boolean; result?: unknown; description?: string } };
  };

  beforeEach(async () => {
    chat = await startFakeChat({ token: TOKEN, chats: [{ id: CHAT, type: "private" }] });
  });
  afterEach(() => chat.close());

  it("ends a waiting getUpdates with 409 when a second poller asks", async () => {
    const first = call("getUpdates", { timeout: 5 });
    await eventually("the first poll waiting", () => chat.waitingPolls() === 1);
    const second = call("getUpdates", { timeout: 0 });
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.status, 409);
    assert.match(a.body.description ?? "", /terminated by other getUpdates request/);
    assert.equal(b.status, 200);
  });

  it("refuses getUpdates while a webhook is set, and serves it after deleteWebhook", async () => {
    await call("setWebhook", { url: "https://example.org/hook" });
    const refused = await call("getUpdates", { timeout: 0 });
    assert.equal(refused.status, 409);
    assert.match(refused.body.description ?? "", /webhook is active/);
    await call("deleteWebhook");
    assert.equal((await call("getUpdates", { timeout: 0 })).status, 200);
  });

  it("refuses callback_data over 64 bytes and a message over 4096 characters", async () => {
    const long = await call("sendMessage", { chat_id: CHAT, text: "hi", reply_markup: { inline_keyboard: [[{ text: "OK", callback_data: "x".repeat(65) }]] } });
    assert.equal(long.status, 400);
    assert.match(long.body.description ?? "", /BUTTON_DATA_INVALID/);
    const fits = await call("sendMessage", { chat_id: CHAT, text: "hi", reply_markup: { inline_keyboard: [[{ text: "OK", callback_data: "é".repeat(32) }]] } });
    assert.equal(fits.status, 200, "64 bytes is the limit");
    assert.equal((await call("sendMessage", { chat_id: CHAT, text: "a".repeat(4097) })).status, 400);
  });

  it("refuses a caption over 1024 characters", async () => {
    const sharp = (await import("sharp")).default;
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#888" } })
      .jpeg()
      .toBuffer();
    const send = async (caption: string) => {
      const form = new FormData();
      form.set("chat_id", String(CHAT));
      form.set("caption", caption);
      form.set("photo", new Blob([new Uint8Array(jpeg)], { type: "image/jpeg" }), "frame.jpg");
      const res = await fetch(`${chat.url}/bot${TOKEN}/sendPhoto`, { method: "POST", body: form });
      return { status: res.status, body: (await res.json()) as { description?: string } };
    };
    const long = await send("a".repeat(1025));
    assert.equal(long.status, 400);
    assert.match(long.body.description ?? "", /caption is too long/);
    assert.equal((await send("a".repeat(1024))).status, 200);
  });

  it("answers a button press once; an unknown or repeated query id is refused", async () => {
    const sent = await call("sendMessage", { chat_id: CHAT, text: "Rose fell", reply_markup: { inline_keyboard: [[{ text: "OK", callback_data: "ack:1" }]] } });
    const messageId = (sent.body.result as { message_id: number }).message_id;
    chat.pressButton(CHAT, messageId, "ack:1", ANNA);
    const updates = await call("getUpdates", { timeout: 0 });
    const id = (updates.body.result as Array<{ callback_query: { id: string } }>)[0]!.callback_query.id;
    assert.equal((await call("answerCallbackQuery", { callback_query_id: id, text: "Thanks" })).status, 200);
    const again = await call("answerCallbackQuery", { callback_query_id: id });
    assert.equal(again.status, 400);
    assert.match(again.body.description ?? "", /query ID is invalid/);
    assert.equal((await call("answerCallbackQuery", { callback_query_id: "999" })).status, 400);
  });
});
