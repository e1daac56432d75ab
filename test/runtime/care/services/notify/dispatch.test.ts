import assert from "node:assert/strict";
import { registry } from "../../../../../nodes/registry.generated";
import type { ChannelHandler } from "../../../../../nodes/_kit/handler-types";
import { spec as popupSpec } from "../../../../../nodes/channels/pwa_popup_text/pwa_popup_text.node";
import { spec as realtimeSpec } from "../../../../../nodes/channels/pwa_realtime_ai/pwa_realtime_ai.node";
import { spec as webhookSpec } from "../../../../../nodes/channels/webhook/webhook.node";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { spec as einkSpec } from "../../../../../nodes/channels/eink/eink.node";
import { spec as announcementSpec } from "../../../../../nodes/channels/announcement/announcement.node";
import { registeredChannel } from "../../../../../runtime/care/services/notify/channels";
import { channelConfig, deliveredByChannel, dispatch, type ChannelLookup, type ChannelSend } from "../../../../../runtime/care/services/notify/dispatch";
import { levelPlan } from "../../../../../runtime/care/core/language/alert-levels";
import { baseMessage, channelMessage } from "../../../../../runtime/care/services/notify/messages";
import type { NotificationPlan } from "../../../../../runtime/care/services/notify/plan";
import { handlerContext } from "../../../../nodes/handler-context";

const plan = (channels: string[]): NotificationPlan => ({
  alert_level: "warning",
  channels,
  messages: Object.fromEntries(channels.map((c) => [c, `for ${c}`])),
  room_name: "Hall",
  image_url: null,
  execution_id: 1,
  options: {},
  escalation: null,
});

describe("notification channel layer", () => {
  const ctx = (): ChannelSend => ({ hctx: handlerContext(), notifications: buildSettings({}).notifications });

  it("collects a receipt per channel: delivered, unbuilt (with what it needs), thrown, unknown", async () => {
    const ok: ChannelHandler<unknown> = async (_c, m) => ({ channel: "x", delivered: true, detail: m.message });
    const boom: ChannelHandler<unknown> = async () => {
      throw new Error("socket closed");
    };
    const lookup: ChannelLookup = (type) =>
      type === "pwa_popup_text"
        ? { spec: popupSpec, handler: ok }
        : type === "webhook"
          ? { spec: webhookSpec, handler: boom }
          : type === "pwa_realtime_ai"
            ? { spec: { ...realtimeSpec, pending: "the realtime voice companion" } }
            : undefined;
    const receipts = await dispatch(ctx(), plan(["pwa_popup_text", "pwa_realtime_ai", "webhook", "pager"]), {}, lookup);
    assert.deepEqual(receipts, [
      { channel: "pwa_popup_text", delivered: true, detail: "for pwa_popup_text" },
      { channel: "pwa_realtime_ai", delivered: false, detail: "cannot deliver yet: it needs the realtime voice companion" },
      { channel: "webhook", delivered: false, detail: "failed: socket closed" },
      { channel: "pager", delivered: false, detail: "unknown channel 'pager'" },
    ]);
    assert.deepEqual(deliveredByChannel(receipts), { pwa_popup_text: true, pwa_realtime_ai: false, webhook: false, pager: false });
  });

  it("through the registry: every channel type has its behaviour (none answers 'cannot deliver yet')", () => {
    const missing = registry.channels.filter((c) => !c.handler || c.spec.pending).map((c) => c.spec.type);
    assert.deepEqual(missing, []);
    for (const c of registry.channels) assert.equal(registeredChannel(c.spec.type)?.handler, c.handler, c.spec.type);
  });

  it("levels: settings replace a level, the spec's table otherwise", () => {
    assert.deepEqual(levelPlan(buildSettings({}), "emergency"), {
      channels: ["pwa_popup_text", "chat_app", "eink", "hub_speaker_tts"],
      escalation_minutes: 5,
      repeat_count: 3,
    });
    assert.deepEqual(levelPlan(buildSettings({}), "info"), { channels: ["pwa_popup_text"], escalation_minutes: null, repeat_count: 0 });
    const s = buildSettings({ notifications: { levels: { emergency: { channels: ["webhook"], escalation_minutes: 1, repeat_count: 5 } } } });
    assert.deepEqual(levelPlan(s, "emergency"), { channels: ["webhook"], escalation_minutes: 1, repeat_count: 5 });
  });

  it("channel configs come from the step's options over the settings, as each channel's spec says", () => {
    const s = buildSettings({
      notifications: { webhook: { url: "http://h/x", timeout_seconds: 3, headers: { Authorization: "Bearer t" } }, eink: { default_expiry_minutes: 12 } },
    }).notifications;
    assert.deepEqual(channelConfig(webhookSpec, {}, s), { url: "http://h/x", timeout_seconds: 3, headers: { Authorization: "Bearer t" } });
    assert.equal(channelConfig(webhookSpec, { webhook_url: "http://other/y" }, s).url, "http://other/y");
    assert.deepEqual(channelConfig(einkSpec, { eink_targets: ["d1"], eink_template_id: 4 }, s), { targets: ["d1"], template_id: 4, expiry_minutes: 12 });
    assert.deepEqual(channelConfig(popupSpec, { webhook_url: "http://other/y" }, s), {}, "a channel without options runs on its defaults");
    assert.deepEqual(announcementSpec.config.parse(channelConfig(announcementSpec, { announcement_mode: "file" }, s)), { mode: "file" });
    assert.deepEqual(announcementSpec.config.parse(channelConfig(announcementSpec, {}, s)), { mode: "stream" }, "streamed unless the step says file");
    assert.equal(announcementSpec.config.safeParse(channelConfig(announcementSpec, { announcement_mode: "mp3" }, s)).success, false);
  });

  it("messages: channel template, then message_template, then the base message", () => {
    const data = { translation: "", logic_response: { user_notification: "Check the stove" }, who: "Rose" };
    assert.equal(baseMessage(data), "Check the stove");
    assert.equal(channelMessage("eink", { eink_template: "{{who}}: stove", message_template: "m" }, data, "f"), "Rose: stove");
    assert.equal(channelMessage("webhook", { eink_template: "e", message_template: "{{who}}!" }, data, "f"), "Rose!");
    assert.equal(channelMessage("webhook", { message_template: "{{nothing}}" }, data, "f"), "Check the stove", "a template rendering empty falls through");
    assert.equal(channelMessage("webhook", {}, {}, "fallback"), "fallback");
  });
});
