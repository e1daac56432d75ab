/**
 * The chat bot's part in webhook mode (issue 44 §1), with the fake Bot API and a ManualClock:
 * nothing polls, so careflow asks `getMe` every 5 minutes; a token refused (401) marks the part
 * down with the reason before any alert needs the chat, and a fixed token is seen at the next
 * check, not only at the next message.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { CHECK_EVERY_MS } from "../../../../runtime/platform/health/endpoint-part";
import { SAMPLE_EVERY_MS, type PartView } from "../../../../runtime/platform/health/parts-board";
import { startFakeChat, type FakeChat } from "../../../fakes/chat-server";
import { eventually } from "../../../support/eventually";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const TOKEN = "91:webhook-part";

describe("the chat bot's part in webhook mode", function () {
  this.timeout(30_000);
  let chat: FakeChat;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-29T09:00:00Z"));

  const chatPart = async (): Promise<PartView | undefined> => {
    const res = await t.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.parts.find((p) => p.id === "chat");
  };
  const getMes = () => chat.calls.filter((c) => c.method === "getMe").length;
  const pass = async (ms: number) => {
    for (let done = 0; done < ms; done += SAMPLE_EVERY_MS) {
      clock.advance(SAMPLE_EVERY_MS);
      await t.app.ctx.parts?.sampled();
    }
  };

  before(async () => {
    chat = await startFakeChat({ token: TOKEN, chats: [{ id: 1001, type: "private" }] });
    t = await startTestApp({
      clock,
      settings: {
        notifications: {
          chat_app: {
            api_base_url: chat.url,
            token: TOKEN,
            mode: "webhook",
            webhook_secret: "a-webhook-secret-0123456789",
            targets: [{ name: "Anna", chat_id: 1001 }],
          },
        },
      },
    });
  });
  after(async () => {
    await t?.close();
    await chat?.close();
  });

  it("asks getMe once per 5 minutes, and is ok while the Bot API takes the token", async () => {
    const before = getMes();
    await pass(CHECK_EVERY_MS - SAMPLE_EVERY_MS);
    assert.equal(getMes(), before, "no check before 5 minutes");
    await pass(SAMPLE_EVERY_MS);
    await eventually("one getMe", () => getMes() === before + 1);
    assert.equal((await chatPart())?.state, "ok");
  });

  it("is late, then down with the reason while the token is refused, and ok again at the next check after it is fixed", async () => {
    chat.failNext("getMe", { error_code: 401, description: "Unauthorized" }, 2);
    const before = getMes();
    await pass(CHECK_EVERY_MS);
    await eventually("the first refused check", () => getMes() === before + 1);
    await eventually("the chat part late", async () => (await chatPart())?.state === "late");
    await pass(CHECK_EVERY_MS);
    await eventually("the second refused check", () => getMes() === before + 2);
    const down = await eventually("the chat part down", async () => {
      const p = await chatPart();
      return p?.state === "down" && p;
    });
    assert.match(down.detail ?? "", /token was refused \(401\)/);
    // The token is fixed (the fake answers again): the next check brings the part back.
    await pass(CHECK_EVERY_MS);
    await eventually("the next check answered", () => getMes() === before + 3);
    await eventually("the chat part ok again", async () => (await chatPart())?.state === "ok");
  });
});
