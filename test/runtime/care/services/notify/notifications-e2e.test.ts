/**
 * Notifications through the real app on a manual clock: a rule's notification step pops up
 * on a `/ws` client, posts to a webhook, renders to the e-ink displays, raises an alert, and
 * the alert escalates at the level's interval until dismissed or repeated `repeat_count`
 * times, also across an app restart on the same store.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { createApp, type CareflowApp } from "../../../../../runtime/app/app";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../../runtime/platform/core/logger";
import { startEscalation, type EscalationHandle } from "../../../../../runtime/care/services/notify/escalation";
import { startWebhookReceiver, type WebhookReceiver } from "../../../../fakes/webhook-receiver";
import { migratedDatabase } from "../../../../support/test-db";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";
import { drained } from "../../../../support/ws-drained";
import { careServices } from "../../../../../runtime/care/services/care-services";

const MIN = 60_000;
const T0 = Date.parse("2026-11-22T09:00:00Z");

interface Frame {
  type: string;
  message?: string;
  room?: string | null;
  [k: string]: unknown;
}

async function connect(baseUrl: string, key: string): Promise<{ ws: WebSocket; frames: Frame[] }> {
  const frames: Frame[] = [];
  // The handler goes on before `open`: what the server sends on connect may arrive with it.
  const ws = new WebSocket(baseUrl.replace("http", "ws") + "/ws", [key]);
  ws.on("message", (data) => frames.push(JSON.parse(String(data)) as Frame));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, frames };
}

const popups = (frames: Frame[], level: string) => frames.filter((f) => f.type === level);

describe("notifications end to end", function () {
  this.timeout(60_000);
  let t: TestApp;
  let clock: ManualClock;
  let rx: WebhookReceiver;
  let esc: EscalationHandle;
  let client: { ws: WebSocket; frames: Frame[] };

  before(async () => {
    rx = await startWebhookReceiver({ bearer: "hook-token" });
    clock = new ManualClock(T0);
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: { notifications: { webhook: { url: rx.url, headers: { Authorization: "Bearer hook-token" } } } },
    });
    esc = startEscalation(t.app.ctx, { services: t.app.services });
    client = await connect(t.baseUrl, KEYS.display);
  });
  after(async () => {
    client.ws.close();
    await esc.stop();
    await t.close();
    await rx.close();
  });
  beforeEach(() => {
    client.frames.length = 0;
    rx.received.length = 0;
  });

  async function runRule(name: string, config: Record<string, unknown>): Promise<Record<string, any>> {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name, trigger_type: "manual" },
      steps: [{ label: name, step_type: "notification", schema_version: 1, config }],
    });
    assert.equal(imported.status, 201, imported.text);
    const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id;
    return eventually(`run of ${name} finished`, async () => {
      const run = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return ["completed", "failed"].includes(run.status) ? run : undefined;
    });
  }

  const alertOf = async (name: string) => (await t.get(`/api/v1/alerts?alert_type=${encodeURIComponent(name)}`)).body[0];
  const advance = async (minutes: number) => {
    clock.advance(minutes * MIN);
    await esc.settled();
  };

  it("an emergency pops up on /ws, posts the webhook, renders the displays, raises an alert; re-sent at 5 minutes until dismissed", async () => {
    const run = await runRule("Fall in hall", {
      alert_level: "emergency",
      channels: ["pwa_popup_text", "webhook", "eink", "hub_speaker_tts"],
      message_template: "Rose may have fallen",
    });
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.equal(run.pipeline_data.notification_dispatched, true);
    assert.deepEqual(run.pipeline_data.notification_channels, { pwa_popup_text: true, webhook: true, eink: true, hub_speaker_tts: false });
    assert.equal((await t.get("/api/v1/events?rule_name=Fall%20in%20hall")).body[0].status, "completed", "notification marks cool-off");

    await eventually("popup on /ws", () => popups(client.frames, "emergency").length === 1);
    const { alert_id, ...popup } = popups(client.frames, "emergency")[0];
    assert.deepEqual(popup, { type: "emergency", message: "Rose may have fallen", room: null });
    assert.equal(typeof alert_id, "number", "the popup names its alert (its OK puts it away)");
    assert.equal(rx.received.length, 1);
    assert.deepEqual(rx.received[0].body, { message: "Rose may have fallen", alert_level: "emergency", room: null, image_url: null });
    assert.equal(rx.received[0].headers.authorization, "Bearer hook-token");
    const card = await fetch(`${t.baseUrl}/api/v1/image/active`, { headers: { "x-api-key": KEYS.display } });
    assert.equal(card.status, 200);
    assert.equal(card.headers.get("x-image-source"), "active");

    const alert = await alertOf("Fall in hall");
    assert.equal(alert.level, "emergency");
    assert.equal(alert.description, "Rose may have fallen");
    assert.equal(alert.execution_id, run.id);
    assert.equal(alert.rule_id, run.rule_id);
    assert.equal(alert.next_escalation_at, new Date(clock.now() + 5 * MIN).toISOString());

    await advance(5);
    await eventually("first re-send", () => popups(client.frames, "emergency").length === 2);
    assert.equal(rx.received.length, 2, "the webhook is re-sent too");
    assert.equal((await alertOf("Fall in hall")).escalation_count, 1);

    const dismissed = await t.post(`/api/v1/alerts/${alert.id}/action`, { action: "dismiss" }, KEYS.caregiver);
    assert.equal(dismissed.status, 200, dismissed.text);
    await esc.settled();
    await advance(30);
    await drained(client.ws);
    assert.equal(popups(client.frames, "emergency").length, 2, "nothing after the dismiss");
    const after = await alertOf("Fall in hall");
    assert.equal(after.resolved, true);
    assert.equal(after.next_escalation_at, null);
  });

  it("a warning is re-sent every 10 minutes, repeat_count (3) times, then stops", async () => {
    await runRule("Bathroom long", { alert_level: "warning", channels: ["pwa_popup_text"], message_template: "Rose is still in the bathroom" });
    await eventually("popup", () => popups(client.frames, "warning").length === 1);
    await advance(9);
    assert.equal(popups(client.frames, "warning").length, 1, "not before 10 minutes");
    for (let i = 2; i <= 4; i++) {
      await advance(i === 2 ? 1 : 10);
      await eventually(`re-send ${i - 1}`, () => popups(client.frames, "warning").length === i);
    }
    await advance(60);
    await drained(client.ws);
    assert.equal(popups(client.frames, "warning").length, 4, "first send + 3 repeats");
    const alert = await alertOf("Bathroom long");
    assert.equal(alert.escalation_count, 3);
    assert.equal(alert.next_escalation_at, null);
    assert.equal(alert.resolved, false, "still open for a caregiver to see");
  });
});

describe("escalation across an app restart", function () {
  this.timeout(60_000);
  const settings = () => buildSettings({ auth: testAuthSettings() });
  let db: Awaited<ReturnType<typeof migratedDatabase>>;
  before(async () => {
    db = await migratedDatabase();
  });
  after(() => db.drop());

  const start = async (clock: ManualClock, nodeRed: boolean): Promise<CareflowApp> => {
    const app = await createApp({
      config: { port: 0, dataDir: db.dataDir, databaseUrl: db.databaseUrl, settingsFile: undefined, settings: settings() },
      clock,
      log: createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent"),
      nodeRed,
    });
    await app.listen(0, "127.0.0.1");
    return app;
  };

  it("re-arms an open emergency from the alerts table and re-sends it through the same channels", async () => {
    const first = await start(new ManualClock(T0), true);
    const firstEsc = startEscalation(first.ctx, { services: careServices(first.ctx) });
    let alertId: number;
    try {
      const base = `http://127.0.0.1:${(first.server.address() as { port: number }).port}`;
      const post = (p: string, body: unknown) =>
        fetch(base + p, { method: "POST", headers: { "x-api-key": KEYS.admin, "content-type": "application/json" }, body: JSON.stringify(body) }).then(
          (r) => r.json() as Promise<Record<string, any>>,
        );
      const imported = await post("/api/v1/rules/import", {
        schema_version: 1,
        rule: { name: "Smoke", trigger_type: "manual" },
        steps: [
          {
            label: "Smoke alarm",
            step_type: "notification",
            schema_version: 1,
            config: { alert_level: "emergency", channels: ["pwa_popup_text"], pwa_popup_text_template: "Smoke in the kitchen" },
          },
        ],
      });
      await post(`/api/v1/rules/${imported.rule_id}/execute`, {});
      const row = await eventually("alert raised", async () => first.ctx.db("alerts").first());
      alertId = row.id;
      assert.equal(row.next_escalation_at, new Date(T0 + 5 * MIN).toISOString());
    } finally {
      await firstEsc.stop();
      await first.close();
    }

    // Down for 3 minutes: back before the 5-minute repetition, which the new process sends. (An
    // overdue one goes out as the app starts, before any screen can reconnect: escalation.test;
    // a screen that connects later is shown it then: alert-replay.test.)
    const clock = new ManualClock(T0 + 3 * MIN);
    const second = await start(clock, false);
    const client = await connect(`http://127.0.0.1:${(second.server.address() as { port: number }).port}`, KEYS.caregiver);
    const esc = startEscalation(second.ctx, { services: careServices(second.ctx) });
    try {
      // The screen that connects is shown the open emergency at once, then gets the re-send.
      const shown = { type: "emergency", message: "Smoke in the kitchen", room: null, alert_id: alertId! };
      await eventually("open emergency shown on connect", () => client.frames.some((f) => f.type === "emergency"));
      assert.deepEqual(popups(client.frames, "emergency"), [shown]);
      await esc.settled();
      clock.advance(2 * MIN);
      await esc.settled();
      await eventually("re-send after restart", () => popups(client.frames, "emergency").length === 2);
      assert.deepEqual(popups(client.frames, "emergency"), [shown, shown]);
      const alert = await second.ctx.db("alerts").where({ id: alertId! }).first();
      assert.equal(alert.escalation_count, 1);
      assert.equal(alert.next_escalation_at, new Date(T0 + 10 * MIN).toISOString());
      client.ws.close();
    } finally {
      await esc.stop();
      await second.close();
    }
  });
});
