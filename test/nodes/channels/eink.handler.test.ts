import assert from "node:assert/strict";
import { handler } from "../../../nodes/channels/eink/eink.handler";
import { spec } from "../../../nodes/channels/eink/eink.node";
import type { ChannelMessage } from "../../../nodes/_kit/handler-types";
import { ensureDefaultTemplate } from "../../../runtime/care/eink/default-template";
import { getDeviceState } from "../../../runtime/care/eink/device-states.store";
import { createSensor } from "../../../runtime/household/sensors/sensors.service";
import { MIN, notifyEnv, T0, type NotifyEnv } from "../../runtime/care/notify/notify-support";

const message = (text = "Time for your tablets"): ChannelMessage => ({
  alert_level: "reminder",
  idempotency_key: null,
  message: text,
  room_name: "Kitchen",
  image_url: null,
  pipeline_data: {},
  execution_id: 3,
});

describe("eink channel handler", function () {
  this.timeout(30_000);
  let env: NotifyEnv;
  before(async () => {
    env = await notifyEnv({ notifications: { eink: { default_targets: ["hall_display"] } } });
    await ensureDefaultTemplate(env.ctx);
    for (const id of ["hall_display", "bedside_display"]) await createSensor(env.ctx, { sensor_id: id, name: id, sensor_type: "eink" });
  });
  after(() => env.close());

  it("renders onto the named targets with the step's expiry", async () => {
    const r = await handler(env.hctx(), message(), spec.config.parse({ targets: ["bedside_display"], expiry_minutes: 45 }));
    assert.equal(r.delivered, true, r.detail);
    const state = await getDeviceState(env.ctx, "bedside_display");
    assert.equal(state?.rendered_text, "Time for your tablets");
    assert.equal(state?.expires_at, new Date(T0 + 45 * MIN).toISOString());
    assert.match(r.detail ?? "", /bedside_display/);
  });

  it("without targets uses notifications.eink.default_targets", async () => {
    const r = await handler(env.hctx(), message("Doctor at 3"), spec.config.parse({}));
    assert.equal(r.delivered, true, r.detail);
    assert.equal((await getDeviceState(env.ctx, "hall_display"))?.rendered_text, "Doctor at 3");
    assert.notEqual((await getDeviceState(env.ctx, "bedside_display"))?.rendered_text, "Doctor at 3");
  });

  it("an unknown display or template is not delivered, with the render's reason", async () => {
    const unknown = await handler(env.hctx(), message(), spec.config.parse({ targets: ["garage_display"] }));
    assert.equal(unknown.delivered, false);
    assert.match(unknown.detail ?? "", /unknown sensor\(s\): garage_display/);
    const noTemplate = await handler(env.hctx(), message(), spec.config.parse({ template_id: "Holiday card" }));
    assert.equal(noTemplate.delivered, false);
    assert.match(noTemplate.detail ?? "", /no template named 'Holiday card'/);
    const noId = await handler(env.hctx(), message(), spec.config.parse({ template_id: 999 }));
    assert.match(noId.detail ?? "", /template 999 does not exist/);
  });
});
