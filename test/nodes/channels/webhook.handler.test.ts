import assert from "node:assert/strict";
import { handler, webhookBody } from "../../../nodes/channels/webhook/webhook.handler";
import { spec } from "../../../nodes/channels/webhook/webhook.node";
import type { ChannelMessage } from "../../../nodes/_kit/handler-types";
import { startWebhookReceiver, type WebhookReceiver } from "../../fakes/webhook-receiver";
import { handlerContext } from "../handler-context";

const message = (over: Partial<ChannelMessage> = {}): ChannelMessage => ({
  alert_level: "emergency",
  idempotency_key: null,
  message: "Rose fell in the hall",
  room_name: "Hall",
  image_url: "/api/v1/media/fall.jpg",
  pipeline_data: {},
  execution_id: 9,
  ...over,
});

describe("webhook channel handler", function () {
  this.timeout(10_000);
  let rx: WebhookReceiver;
  beforeEach(async () => {
    rx = await startWebhookReceiver({ bearer: "s3cret" });
  });
  afterEach(() => rx.close());

  const config = (over: Record<string, unknown> = {}) =>
    spec.config.parse({ url: rx.url, headers: { Authorization: "Bearer s3cret", "X-Home": "rose" }, ...over });

  it("sends the step activation's idempotency key, so a receiver can drop a repeat", async () => {
    await handler(handlerContext(), message({ idempotency_key: "9:4:0" }), config());
    await handler(handlerContext(), message(), config());
    assert.equal(rx.received[0].headers["idempotency-key"], "9:4:0");
    assert.equal(rx.received[1].headers["idempotency-key"], undefined, "none when the send has no key");
  });

  it("POSTs {message, alert_level, room, image_url} with the configured headers; 2xx is delivered", async () => {
    const r = await handler(handlerContext(), message(), config());
    assert.equal(r.delivered, true, r.detail);
    assert.equal(rx.received.length, 1);
    const got = rx.received[0];
    assert.deepEqual(got.body, { message: "Rose fell in the hall", alert_level: "emergency", room: "Hall", image_url: "/api/v1/media/fall.jpg" });
    assert.equal(got.headers.authorization, "Bearer s3cret");
    assert.equal(got.headers["x-home"], "rose");
    assert.match(String(got.headers["content-type"]), /application\/json/);
    assert.equal(got.path, "/hook");
  });

  it("sends a rendered template that parses as JSON as the body itself", async () => {
    const r = await handler(handlerContext(), message({ message: '{"text": "Rose fell", "priority": 1}' }), config());
    assert.equal(r.delivered, true);
    assert.deepEqual(rx.received[0].body, { text: "Rose fell", priority: 1 });
    assert.deepEqual(webhookBody(message({ message: "{not json" })), {
      message: "{not json",
      alert_level: "emergency",
      room: "Hall",
      image_url: "/api/v1/media/fall.jpg",
    });
  });

  it("a 5xx is not delivered, with the status and the receiver's answer", async () => {
    rx.answerWith(503);
    const r = await handler(handlerContext(), message(), config());
    assert.equal(r.delivered, false);
    assert.match(r.detail ?? "", /answered 503: .*receiver told to fail/);
  });

  it("a wrong bearer token (401) is not delivered", async () => {
    const r = await handler(handlerContext(), message(), config({ headers: { Authorization: "Bearer wrong" } }));
    assert.equal(r.delivered, false);
    assert.match(r.detail ?? "", /answered 401/);
  });

  it("a receiver slower than timeout_seconds is not delivered, naming the timeout", async () => {
    rx.delayBy(2000);
    const t0 = Date.now();
    const r = await handler(handlerContext(), message(), config({ timeout_seconds: 0.3 }));
    assert.equal(r.delivered, false);
    assert.match(r.detail ?? "", /did not answer within 0.3 s/);
    assert.ok(Date.now() - t0 < 1500, "gave up at the timeout");
  });

  it("no URL is not delivered with the reason; an unreachable one names the failure", async () => {
    const none = await handler(handlerContext(), message(), spec.config.parse({}));
    assert.deepEqual(none, {
      channel: "webhook",
      delivered: false,
      detail: "no webhook address is set up, neither on the step nor in the household's notification settings",
    });
    const closed = await startWebhookReceiver();
    const url = closed.url;
    await closed.close();
    const r = await handler(handlerContext(), message(), spec.config.parse({ url }));
    assert.equal(r.delivered, false);
    assert.match(r.detail ?? "", /unreachable/);
  });

  it("keeps a token in the URL out of the receipt", async () => {
    rx.answerWith(500);
    const r = await handler(handlerContext(), message(), config({ url: `${rx.url}?token=abc` }));
    assert.doesNotMatch(r.detail ?? "", /abc/);
  });
});
