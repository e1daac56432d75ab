/**
 * The fallback (issue 44 §2), over real HTTP against fakes that speak the real protocols: a
 * chat bot whose token is refused (401), a hub with a notify service, a webhook receiver. A
 * notification whose every channel failed goes out on the next working route exactly once,
 * the run needs a look naming both, and the chat part is down with the reason; when every
 * route fails the run says nobody was reached; a channel that works needs no fallback; a
 * message for the family never lands on the senior's tablet unless its level's defaults
 * have it; escalation re-sends fall back the same way.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import type { EscalationHandle } from "../../../../../runtime/care/services/notify/escalation";
import type { PartView } from "../../../../../runtime/platform/health/parts-board";
import { startFakeChat, type FakeChat } from "../../../../fakes/chat-server";
import { startFakeHub, type FakeHub } from "../../../../fakes/hub-server";
import { startWebhookReceiver, type WebhookReceiver } from "../../../../fakes/webhook-receiver";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";

const MIN = 60_000;

describe("a notification whose channels all failed falls back", function () {
  this.timeout(60_000);
  let chat: FakeChat;
  let hub: FakeHub;
  let hook: WebhookReceiver;
  let t: TestApp;
  let esc: EscalationHandle;
  const clock = new ManualClock(Date.parse("2026-11-29T09:00:00Z"));

  before(async () => {
    chat = await startFakeChat({ token: "88:good", chats: [{ id: 1001, type: "private" }] });
    hub = await startFakeHub({ token: "hub-token-1" });
    hook = await startWebhookReceiver();
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: {
        hub: { url: hub.url, token: hub.token },
        notifications: {
          // The bot's token was revoked: every Bot API call answers 401. Webhook mode: no poller.
          chat_app: {
            api_base_url: chat.url,
            token: "88:revoked",
            mode: "webhook",
            webhook_secret: "a-webhook-secret-0123456789",
            targets: [{ name: "Anna", chat_id: 1001, alert_levels: [] }],
          },
          webhook: { url: `${hook.url}/careflow` },
          fallback: { hub_notify_service: "notify.family" },
        },
      },
    });
    assert.ok(await t.app.ctx.hub!.client!.whenConnected(5000), "connected to the fake hub");
    esc = t.app.escalation;
  });
  after(async () => {
    await esc?.stop();
    await t?.close();
    await hub?.close();
    await hook?.close();
    await chat?.close();
  });

  const notifies = () => hub.calls.filter((c) => c.domain === "notify");

  async function run(name: string, config: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name, trigger_type: "manual" },
      steps: [{ label: name, step_type: "notification", schema_version: 1, config }],
    });
    assert.equal(res.status, 201, res.text);
    const exec = (await t.post(`/api/v1/rules/${res.body.rule_id}/execute`)).body.execution_id as number;
    return eventually(`run of ${name}`, async () => {
      const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return ["completed", "failed"].includes(r.status) ? r : undefined;
    });
  }

  async function part(id: string): Promise<PartView> {
    const res = await t.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.parts.find((p) => p.id === id)!;
  }

  it("chat answers 401: the message arrives once through the hub notify, the run names both, the chat part is down", async () => {
    const before = notifies().length;
    const feed = new WebSocket(t.baseUrl.replace("http", "ws") + "/ws/pipeline", [KEYS.caregiver]);
    const frames: Array<Record<string, any>> = [];
    feed.on("message", (d) => frames.push(JSON.parse(String(d))));
    await new Promise((ok, fail) => feed.once("open", ok).once("error", fail));
    const r = await run("Not up yet", { alert_level: "warning", channels: ["chat_app"], message_template: "Rose is not up yet" });
    assert.equal(r.status, "completed");

    const sent = notifies().slice(before);
    assert.equal(sent.length, 1, "exactly once");
    assert.equal(sent[0].service, "family");
    assert.match(String(sent[0].service_data.message), /^Rose is not up yet\n\(Sent here because the family chat failed\.\)$/);
    assert.equal(hook.received.length, 0, "the next route carried it: no more are tried");

    const step = r.step_timings[0];
    assert.deepEqual(
      step.receipts.map((x: Record<string, unknown>) => [x.channel, x.delivered, x.fallback ?? false]),
      [
        ["chat_app", false, false],
        ["hub_notify", true, true],
      ],
    );
    assert.match(step.warning, /^sent through Hub notification instead, because every other channel failed \(Family chat: .*401/);
    assert.equal(r.warnings.length, 1, "the run needs a look");
    assert.match(r.warnings[0], /Hub notification.*Family chat/);
    assert.equal(r.pipeline_data.notification_dispatched, true);
    assert.deepEqual(r.pipeline_data.notification_channels, { chat_app: false, hub_notify: true });
    assert.deepEqual((await t.get(`/api/v1/workflows/${r.id}/detail`)).body.warnings, r.warnings);
    const live = await eventually("step_completed on the live feed", () =>
      frames.find((f) => f.event_type === "step_completed" && f.execution_id === r.id),
    ).finally(() => feed.close());
    assert.equal(live.warning, step.warning, "the live feed says it");
    const careRuns = (await fetch(`${t.baseUrl}/editor/careflow/runs`, { headers: { authorization: `Bearer ${KEYS.admin}` } }).then((x) => x.json())) as Array<
      Record<string, any>
    >;
    assert.deepEqual(careRuns.find((x) => x.execution_id === r.id)?.warnings, r.warnings, "the Care runs tab says it");

    const chatPart = await part("chat");
    assert.equal(chatPart.state, "down", "down at once, not after the link's grace");
    assert.match(chatPart.detail ?? "", /Family chat: .*401/);
    assert.equal((await part("hub")).state, "ok");

    const alert = (await t.get(`/api/v1/alerts?alert_type=${encodeURIComponent("Not up yet")}`)).body[0];
    const history = (await t.get(`/api/v1/alerts/${alert.id}`)).body.history as Array<Record<string, any>>;
    assert.ok(history.some((h) => h.channel === "hub_notify" && h.event === "delivered" && /^fallback: /.test(h.detail)));

    // The re-send ten minutes later falls back the same way.
    clock.advance(10 * MIN);
    await esc.settled();
    await eventually("the re-send", async () => ((await t.get(`/api/v1/alerts/${alert.id}`)).body.escalation_count === 1 ? true : undefined));
    assert.equal(notifies().length, before + 2, "the re-send went through the hub notify too, once");
    const again = (await t.get(`/api/v1/alerts/${alert.id}`)).body.history as Array<Record<string, any>>;
    assert.ok(again.some((h) => h.escalation === 1 && h.channel === "chat_app" && h.event === "failed"));
    assert.ok(again.some((h) => h.escalation === 1 && h.channel === "hub_notify" && h.event === "delivered"));
    await t.post(`/api/v1/alerts/${alert.id}/action`, { action: "dismiss" });
  });

  it("every route fails: the run says nobody was reached, naming each; the webhook part is down, the connected hub is not", async () => {
    hub.failNext("call_service", { code: "home_assistant_error", message: "notify.family: no device" });
    hook.answerWith(500);
    try {
      const r = await run("Nobody reached", { alert_level: "info", channels: ["chat_app"], message_template: "Rose went out" });
      assert.equal(r.pipeline_data.notification_dispatched, false);
      assert.match(
        r.step_timings[0].warning,
        /^reached nobody \(Family chat: .*401.*\); the fallback failed too \(Hub notification: .*no device; Webhook: .*500/,
      );
      assert.match(r.warnings[0], /reached nobody/);
      assert.equal(hook.received.length, 1, "the webhook was tried once");
      const webhook = await part("webhook");
      assert.equal(webhook.state, "down");
      assert.match(webhook.detail ?? "", /500/);
      assert.equal((await part("hub")).state, "ok", "a refused notify service is about the service, not the hub link");
    } finally {
      hook.answerWith(undefined);
    }
  });

  it("a message for the family never falls back onto the senior's tablet, whatever its level; one meant for the home may", async () => {
    const tablet = new WebSocket(t.baseUrl.replace("http", "ws") + "/ws", [KEYS.webapp]);
    const frames: Array<Record<string, unknown>> = [];
    tablet.on("message", (d) => frames.push(JSON.parse(String(d))));
    await new Promise((r, j) => tablet.once("open", r).once("error", j));
    hook.answerWith(500);
    try {
      hub.failNext("call_service");
      const family = await run("Family only", { alert_level: "info", channels: ["chat_app"], message_template: "For the family" });
      assert.match(family.step_timings[0].warning, /^reached nobody/);
      assert.ok(
        !family.step_timings[0].receipts.some((x: Record<string, unknown>) => x.channel === "pwa_popup_text"),
        "the tablet is not a fallback of info here",
      );

      // A warning about Rose, for the family: the tablet popup is among the warning level's
      // defaults, yet the caregiver sent it to the chat only, so it stays off her screen.
      hub.failNext("call_service");
      const aboutRose = await run("About Rose", { alert_level: "warning", channels: ["chat_app"], message_template: "Rose is not up yet" });
      assert.match(aboutRose.step_timings[0].warning, /^reached nobody/);
      assert.ok(!aboutRose.step_timings[0].receipts.some((x: Record<string, unknown>) => x.channel === "pwa_popup_text"));

      // Meant for the home (the speaker, none set up here; the hub notify fails): the tablet may carry it.
      hub.failNext("call_service");
      const forHome = await run("For the home", {
        alert_level: "warning",
        channels: ["chat_app", "hub_speaker_tts"],
        message_template: "Lunch is in the fridge",
      });
      assert.match(forHome.step_timings[0].warning, /^sent through Tablet popup instead/);
      await eventually("the popup", () => frames.find((f) => f.message === "Lunch is in the fridge") ?? undefined);
      assert.ok(!frames.some((f) => f.message === "For the family" || f.message === "Rose is not up yet"), "no family message on her tablet");
    } finally {
      hook.answerWith(undefined);
      tablet.close();
    }
  });

  it("the first channel works: no fallback, no warning", async () => {
    const calls = notifies().length;
    const received = hook.received.length;
    const r = await run("Webhook works", { alert_level: "warning", channels: ["webhook"], message_template: "All fine" });
    assert.equal(r.step_timings[0].warning, null);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(
      r.step_timings[0].receipts.map((x: Record<string, unknown>) => x.channel),
      ["webhook"],
    );
    assert.equal(hook.received.length, received + 1);
    assert.equal(notifies().length, calls);
    assert.equal((await part("webhook")).state, "ok", "a delivery is the webhook's sign of life");
  });
});
