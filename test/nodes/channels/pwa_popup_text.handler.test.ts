import assert from "node:assert/strict";
import { handler } from "../../../nodes/channels/pwa_popup_text/pwa_popup_text.handler";
import { spec } from "../../../nodes/channels/pwa_popup_text/pwa_popup_text.node";
import type { ChannelMessage } from "../../../nodes/_kit/handler-types";
import type { WebAppFrame } from "../../../vocabulary/tablet";
import { handlerContext } from "../handler-context";

const message = (over: Partial<ChannelMessage> = {}): ChannelMessage => ({
  alert_level: "warning",
  idempotency_key: null,
  message: "Rose has been in the bathroom for 40 minutes",
  room_name: "Bathroom",
  image_url: null,
  pipeline_data: {},
  execution_id: 1,
  ...over,
});

function hubWith(clients: number) {
  const frames: WebAppFrame[] = [];
  return { frames, ctx: handlerContext({ webapp: { broadcast: (f) => (frames.push(f), clients) } }) };
}

describe("pwa_popup_text channel handler", () => {
  it("broadcasts {type: level, message, room} and is delivered when a client got it", async () => {
    const { frames, ctx } = hubWith(2);
    const r = await handler(ctx, message(), spec.config.parse({}));
    assert.deepEqual(frames, [{ type: "warning", message: "Rose has been in the bathroom for 40 minutes", room: "Bathroom" }]);
    assert.equal(r.delivered, true);
    assert.match(r.detail ?? "", /^shown on 2 screens$/);
  });

  it("names the alert the popup belongs to, so the screen's OK can put it away", async () => {
    const { frames, ctx } = hubWith(1);
    await handler(ctx, message({ alert_id: 42 }), spec.config.parse({}));
    assert.equal(frames[0].alert_id, 42);
  });

  it("adds image_url when there is one and include_image is on, leaves it out when off", async () => {
    const on = hubWith(1);
    await handler(on.ctx, message({ image_url: "/api/v1/media/x.jpg", alert_level: "emergency" }), spec.config.parse({}));
    assert.deepEqual(on.frames[0], {
      type: "emergency",
      message: "Rose has been in the bathroom for 40 minutes",
      room: "Bathroom",
      image_url: "/api/v1/media/x.jpg",
    });
    const off = hubWith(1);
    await handler(off.ctx, message({ image_url: "/api/v1/media/x.jpg" }), spec.config.parse({ include_image: false }));
    assert.equal("image_url" in off.frames[0], false);
  });

  it("is not delivered when no web app is connected, and says so", async () => {
    const { ctx } = hubWith(0);
    const r = await handler(ctx, message(), spec.config.parse({}));
    assert.deepEqual(r, { channel: "pwa_popup_text", delivered: false, detail: "no tablet has the care app open" });
  });
});
