import assert from "node:assert/strict";
import { checkConfig } from "../../../../nodes/_kit/config";
import { handler } from "../../../../nodes/steps/notification/notification.handler";
import { spec } from "../../../../nodes/steps/notification/notification.node";
import type { z } from "zod";
import { listAlerts } from "../../../../runtime/household/alerts/alerts.service";
import { fromJsonText } from "../../../../runtime/platform/db/json-column";
import type { NotificationPlan } from "../../../../runtime/care/services/notify/plan";
import { startWebhookReceiver, type WebhookReceiver } from "../../../fakes/webhook-receiver";
import { MIN, notificationInput, notifyEnv, T0, type NotifyEnv } from "../../../runtime/care/services/notify/notify-support";

type Config = z.output<typeof spec.config>;
const configOf = (raw: Record<string, unknown>): Config => {
  const check = checkConfig(spec, raw);
  assert.ok(check.ok, JSON.stringify(check));
  return check.config as Config;
};

describe("notification step handler", function () {
  this.timeout(30_000);
  let env: NotifyEnv;
  let rx: WebhookReceiver;
  before(async () => {
    rx = await startWebhookReceiver({ bearer: "tok" });
    env = await notifyEnv({ notifications: { webhook: { url: rx.url, headers: { Authorization: "Bearer tok" } } } });
  });
  after(async () => {
    await env.close();
    await rx.close();
  });
  beforeEach(async () => {
    env.hub.frames.length = 0;
    env.hub.clients = 1;
    rx.received.length = 0;
    await env.ctx.db("alerts").delete();
  });

  const run = (config: Record<string, unknown>, data: Record<string, unknown> = {}) => handler(env.hctx(), notificationInput(data), configOf(config));

  it("info: popup only, the base message from translation, cool-off marked, no alert", async () => {
    const r = await run({ alert_level: "info" }, { translation: "Rose is awake", logic_response: { user_notification: "ignored" } });
    assert.deepEqual(r.data, { notification_dispatched: true, notification_channels: { pwa_popup_text: true }, _cooloff_triggered: true });
    assert.deepEqual(env.hub.frames, [{ type: "info", message: "Rose is awake", room: "Bathroom" }]);
    assert.equal((await listAlerts(env.ctx, { limit: 10, offset: 0 })).length, 0);
  });

  it("base message falls back to logic_response.user_notification, then vision_response, then level and label", async () => {
    await run({ alert_level: "info" }, { logic_response: { user_notification: "Check on Rose" }, vision_response: "a person" });
    await run({ alert_level: "info" }, { vision_response: "a person lying on the floor" });
    await run({ alert_level: "info" }, {});
    assert.deepEqual(
      env.hub.frames.map((f) => f.message),
      ["Check on Rose", "a person lying on the floor", "Info: Bathroom too long"],
    );
  });

  it("notification_suppressed sends nothing, raises nothing and does not mark cool-off", async () => {
    const r = await run({ alert_level: "emergency" }, { notification_suppressed: true, translation: "x" });
    assert.deepEqual(r.data, { notification_dispatched: false, notification_channels: {} });
    assert.equal(env.hub.frames.length, 0);
    assert.equal(rx.received.length, 0);
    assert.equal((await listAlerts(env.ctx, { limit: 10, offset: 0 })).length, 0);
  });

  it("warning: the level's channels, the voice companion through its fallback (on screen); an alert with next_escalation_at in 10 minutes", async () => {
    const r = await run({ alert_level: "warning", message_template: "{{person}} needs help", trigger_cooloff: false }, { person: "Rose" });
    assert.deepEqual(r.data, {
      notification_dispatched: true,
      notification_channels: { pwa_popup_text: true, chat_app: false, eink: false, pwa_realtime_ai: true },
    });
    const [alert] = await listAlerts(env.ctx, { limit: 10, offset: 0 });
    assert.equal(alert.alert_type, "Bathroom too long", "the step's label");
    assert.equal(alert.level, "warning");
    assert.equal(alert.description, "Rose needs help");
    assert.equal(alert.room_name, "Bathroom");
    assert.equal(alert.rule_id, 7);
    assert.equal(alert.execution_id, 42);
    assert.equal(alert.next_escalation_at, new Date(T0 + 10 * MIN).toISOString());
    const row = await env.ctx.db("alerts").where({ id: alert.id }).first();
    const plan = fromJsonText<NotificationPlan>(row.notification_json, null as never);
    assert.deepEqual(plan.channels, ["pwa_popup_text", "chat_app", "eink", "pwa_realtime_ai"]);
    assert.deepEqual(plan.escalation, { interval_minutes: 10, repeat_count: 3 });
  });

  it("emergency: channels override, per-channel templates, webhook JSON template, alert in 5 minutes", async () => {
    const r = await run(
      {
        alert_level: "emergency",
        channels: ["pwa_popup_text", "webhook", "hub_speaker_tts"],
        message_template: "Fall in {{room}}",
        pwa_popup_text_template: "Rose fell in the {{room}}!",
        webhook_template: '{"event": "fall", "room": "{{room}}"}',
      },
      { room: "hall" },
    );
    assert.deepEqual(r.data?.notification_channels, { pwa_popup_text: true, webhook: true, hub_speaker_tts: false });
    assert.equal(env.hub.frames[0].message, "Rose fell in the hall!");
    assert.deepEqual(rx.received[0].body, { event: "fall", room: "hall" });
    assert.equal(rx.received[0].headers.authorization, "Bearer tok");
    const [alert] = await listAlerts(env.ctx, { limit: 10, offset: 0 });
    assert.equal(alert.level, "emergency");
    assert.equal(alert.description, "Rose fell in the hall!");
    assert.equal(alert.next_escalation_at, new Date(T0 + 5 * MIN).toISOString());
  });

  it("the step's webhook_url wins over the global one; nothing delivered still raises the alert", async () => {
    env.hub.clients = 0;
    const other = await startWebhookReceiver();
    other.answerWith(500);
    try {
      const r = await run({ alert_level: "warning", channels: ["pwa_popup_text", "webhook"], webhook_url: other.url });
      assert.equal(other.received.length, 1);
      assert.equal(rx.received.length, 0);
      assert.equal(r.data?.notification_dispatched, false);
      assert.equal((await listAlerts(env.ctx, { limit: 10, offset: 0 })).length, 1);
    } finally {
      await other.close();
    }
  });

  it("settings levels override the defaults (channels and escalation)", async () => {
    const custom = await notifyEnv({
      notifications: {
        levels: {
          warning: { channels: ["pwa_popup_text"], escalation_minutes: 2, repeat_count: 1 },
          info: { channels: ["pwa_popup_text"], escalation_minutes: 1, repeat_count: 1 },
        },
      },
    });
    try {
      const r = await handler(custom.hctx(), notificationInput({ translation: "x" }), configOf({ alert_level: "warning" }));
      assert.deepEqual(r.data?.notification_channels, { pwa_popup_text: true });
      const [alert] = await listAlerts(custom.ctx, { limit: 10, offset: 0 });
      assert.equal(alert.next_escalation_at, new Date(T0 + 2 * MIN).toISOString());
      await handler(custom.hctx(), notificationInput({ translation: "x" }), configOf({ alert_level: "info" }));
      assert.equal((await listAlerts(custom.ctx, { limit: 10, offset: 0 })).length, 1, "info never raises an alert");
    } finally {
      await custom.close();
    }
  });
});
