/**
 * The daily health message across restarts, on one store and a ManualClock (Europe/Berlin): a
 * restart at 09:30 after the day's message does not send it again; careflow down at 09:00 and
 * back at 10:00 sends it then, saying it is late; a store's first start after 09:00 waits for
 * the next day.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { migratedDatabase, type TestDatabase } from "../../../../support/test-db";
import { startFakeChat, type FakeChat } from "../../../../fakes/chat-server";

const TOKEN = "78:daily-restart-token";
/** 09:00 in Berlin (summer time) on 1 June 2026. */
const NINE = Date.parse("2026-06-01T07:00:00Z");
const MINUTE = 60_000;
const DAY = 86_400_000;

describe("the daily health message across restarts", function () {
  this.timeout(60_000);
  let chat: FakeChat;
  let db: TestDatabase;
  let t: TestApp | undefined;

  const start = async (atMs: number, database = db): Promise<{ t: TestApp; clock: ManualClock }> => {
    const clock = new ManualClock(atMs);
    t = await startTestApp({
      clock,
      database,
      settings: {
        app: { timezone: "Europe/Berlin" },
        notifications: { chat_app: { api_base_url: chat.url, token: TOKEN, poll_timeout_seconds: 1, targets: [{ name: "Anna", chat_id: 1001 }] } },
      },
    });
    await t.app.dailyHealth.idle();
    return { t, clock };
  };
  const stop = async () => {
    await t?.close();
    t = undefined;
  };
  const reports = () => chat.messages.filter((m) => m.chat_id === 1001 && /\(last 24 h\)/.test(m.text ?? "")).map((m) => m.text!);

  beforeEach(async () => {
    chat = await startFakeChat({ token: TOKEN, chats: [{ id: 1001, type: "private" }] });
    db = await migratedDatabase();
  });
  afterEach(async () => {
    await stop();
    await chat?.close();
    await db?.drop();
  });

  it("a restart at 09:30 after the day's message does not send it again; down at 09:00 and back at 10:00 the next day, it goes out then", async () => {
    const first = await start(NINE - MINUTE);
    first.clock.set(NINE);
    await first.t.app.dailyHealth.idle();
    assert.equal(reports().length, 1);
    first.clock.set(NINE + 30 * MINUTE);
    await stop();

    await start(NINE + 30 * MINUTE);
    assert.equal(reports().length, 1, "no second message at 09:30");
    await stop();

    // The next day careflow is down at 09:00 and back at 10:00.
    await start(NINE + DAY + 60 * MINUTE);
    assert.equal(reports().length, 2);
    assert.match(reports()[1]!, /\(This message was due at 09:00; careflow was not running then\.\)$/);
  });

  it("a store's first start after 09:00 sends nothing that day; the next day at 09:00 it does", async () => {
    const { t: app, clock } = await start(NINE + 60 * MINUTE);
    assert.deepEqual(reports(), []);
    clock.set(NINE + DAY);
    await app.app.dailyHealth.idle();
    assert.equal(reports().length, 1);
    assert.doesNotMatch(reports()[0]!, /was due/);
  });
});
