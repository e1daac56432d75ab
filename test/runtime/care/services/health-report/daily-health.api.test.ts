/**
 * The family's daily health message (issue 44 §3) through the real app, the fake Bot API and a
 * ManualClock in Europe/Berlin: at 09:00 each chat that wants it gets one message naming the
 * parts, the runs and the alerts with who took them; an hour later nothing more, the next day one
 * more; a chat that said `/daily off` gets none; `/health` answers the same on demand, an unknown
 * chat gets nothing; a failed send shows in the parts' health.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { actOnAlert, createAlert } from "../../../../../runtime/household/alerts/alerts.service";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../../support/test-app";
import { eventually, importRule, runsOf } from "../../../../support/eventually";
import { captureLog } from "../../../../support/capture-log";
import { startFakeChat, type ChatUser, type FakeChat } from "../../../../fakes/chat-server";

const TOKEN = "77:daily-health-token";
const ANNA: ChatUser = { id: 501, is_bot: false, first_name: "Anna" };
const CARLA: ChatUser = { id: 503, is_bot: false, first_name: "Carla" };
const MALLORY: ChatUser = { id: 9, is_bot: false, first_name: "Mallory" };
/** 09:00 in Berlin (summer time) on 1 June 2026. */
const NINE = Date.parse("2026-06-01T07:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("the daily health message", function () {
  this.timeout(90_000);
  let chat: FakeChat;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-06-01T00:10:00Z")); // 02:10 in Berlin
  const logs = captureLog("warn");

  const textsTo = (chatId: number) => chat.messages.filter((m) => m.chat_id === chatId).map((m) => m.text ?? "");
  const reportsTo = (chatId: number) => textsTo(chatId).filter((x) => /\(last 24 h\)/.test(x));
  /** Moves the clock and waits for the sends it started. */
  const moveTo = async (ms: number) => {
    clock.set(ms);
    await t.app.dailyHealth.idle();
  };

  before(async () => {
    chat = await startFakeChat({ token: TOKEN, chats: [1001, 1002, 1003].map((id) => ({ id, type: "private" as const })) });
    const auth = testAuthSettings();
    // No tablet key: the parts are the hall display, the chat bot and the gauges.
    auth.api_keys = auth.api_keys!.filter((k) => !k.permissions.includes("webapp"));
    auth.device_keys = auth.device_keys!.filter((d) => d.sensor_id === "hall_display");
    t = await startTestApp({
      nodeRed: true,
      clock,
      log: logs.log,
      settings: {
        auth,
        app: { timezone: "Europe/Berlin" },
        notifications: {
          chat_app: {
            api_base_url: chat.url,
            token: TOKEN,
            poll_timeout_seconds: 1,
            targets: [
              { name: "Anna", chat_id: 1001 },
              { name: "Ben", chat_id: 1002 },
              { name: "Carla", chat_id: 1003 },
            ],
          },
        },
      },
    });
    assert.equal((await t.post("/api/v1/persons", { display_name: "Rose" })).status, 201);
    // Three runs of a rule, a door alert at 02:10 that Anna took at 02:14.
    const rule = await importRule(t, {
      rule: { name: "Check", trigger_type: "manual" },
      steps: [{ label: "c", step_type: "condition", config: { expression: "true" } }],
    });
    for (let i = 0; i < 3; i++) assert.equal((await t.post(`/api/v1/rules/${rule}/execute`)).status < 300, true);
    await eventually("three runs done", async () => (await runsOf(t, rule)).filter((r) => r.status === "completed").length === 3);
    const alert = await createAlert(t.app.ctx, { alert_type: "door", level: "warning", description: "Door open at night" });
    clock.advance(4 * 60_000);
    await actOnAlert(t.app.ctx, alert.id, { action: "assist" }, "Anna");
    // The hall display's last poll at 07:40; it polls every minute, so by 09:00 it is overdue.
    clock.set(Date.parse("2026-06-01T05:40:00Z"));
    assert.ok((await t.request("GET", "/api/v1/image/active", { key: null, headers: { authorization: KEYS.display } })).status < 500);
  });
  after(async () => {
    await t?.close();
    await chat?.close();
  });

  it("/daily off turns it off for that chat, and says so", async () => {
    chat.sendText(1003, "/daily off", CARLA);
    const [answer] = await eventually("Carla's answer", () => textsTo(1003).length && textsTo(1003));
    assert.match(answer!, /does not get the daily health message.*\/daily on/);
  });

  it("/health answers on demand in a target's chat; an unknown chat gets nothing", async () => {
    clock.set(NINE - 60_000);
    chat.sendText(4242, "/health", MALLORY);
    chat.sendText(1001, "/health", ANNA);
    const [answer] = await eventually("the answer to Anna", () => reportsTo(1001).length && reportsTo(1001));
    assert.match(
      answer!,
      /^Needs a look at Rose's home \(last 24 h\): (\d+) of \1 parts answered; 3 rules ran; 1 alert \(Door open at night, acknowledged by Anna at 02:14\)\./,
    );
    assert.match(answer!, /Late: hall display, nothing since 07:40\./);
    assert.deepEqual(textsTo(4242), [], "Mallory's chat got no answer (updates are handled in order: his came first)");
  });

  it("at 09:00 each chat that wants it gets exactly one message; an hour later nothing more; the next day one more", async () => {
    const before = { anna: reportsTo(1001).length, ben: reportsTo(1002).length };
    await moveTo(NINE);
    assert.equal(reportsTo(1001).length, before.anna + 1, "Anna: one");
    assert.equal(reportsTo(1002).length, before.ben + 1, "Ben: one");
    assert.deepEqual(reportsTo(1003), [], "Carla turned it off");
    const today = reportsTo(1002).at(-1)!;
    assert.match(
      today,
      /^Needs a look at Rose's home \(last 24 h\): (\d+) of \1 parts answered; 3 rules ran; 1 alert \(Door open at night, acknowledged by Anna at 02:14\)\. Late: hall display, nothing since 07:40\.$/,
    );

    await moveTo(NINE + HOUR);
    assert.equal(reportsTo(1001).length, before.anna + 1, "nothing more within the day");
    assert.equal(reportsTo(1002).length, before.ben + 1);

    await moveTo(NINE + DAY);
    assert.equal(reportsTo(1001).length, before.anna + 2, "the next day, one more");
    assert.equal(reportsTo(1002).length, before.ben + 2);
    assert.deepEqual(reportsTo(1003), []);
    assert.match(reportsTo(1001).at(-1)!, /no rules ran; no alerts\. Late: hall display, nothing since Jun 1 07:40\./);
  });

  it("a send that fails is logged and shown with the parts' health; the other chats still get theirs", async () => {
    chat.failNext("sendMessage", { error_code: 400, description: "Bad Request: chat not found" });
    const ben = reportsTo(1002).length;
    await moveTo(NINE + 2 * DAY);
    assert.equal(reportsTo(1002).length, ben + 1);
    const res = await t.get("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.equal(res.status, 200);
    assert.equal(res.body.daily_report.date, "2026-06-03");
    assert.deepEqual(
      res.body.daily_report.results.map((r: { target: string; delivered: boolean }) => [r.target, r.delivered]),
      [
        ["Anna", false],
        ["Ben", true],
      ],
    );
    assert.match(res.body.daily_report.results[0].detail, /chat not found/);
    const line = logs.lines.find((l) => l.msg === "daily health message not delivered");
    assert.equal(line?.target, "Anna", JSON.stringify(logs.lines));
    assert.match(String(line?.reason), /chat not found/);
  });
});
