import assert from "node:assert/strict";
import { handler, targetsFor } from "../../../nodes/channels/chat_app/chat_app.handler";
import { spec } from "../../../nodes/channels/chat_app/chat_app.node";
import type { ChannelMessage } from "../../../nodes/_kit/handler-types";
import type { ChatSendRequest } from "../../../vocabulary/chat";
import { handlerContext } from "../handler-context";

const message = (over: Partial<ChannelMessage> = {}): ChannelMessage => ({
  alert_level: "emergency",
  idempotency_key: null,
  message: "Rose fell",
  room_name: "Hall",
  image_url: null,
  pipeline_data: {},
  execution_id: 1,
  alert_id: 9,
  escalation: 0,
  media_paths: ["media/cam/1.jpg", "media/cam/2.jpg"],
  ...over,
});

const TARGETS = [
  { name: "Anna", chat_id: 1, alert_levels: ["emergency" as const] },
  { name: "Ben", chat_id: "2", alert_levels: [] },
  { name: "Nurse", chat_id: 3, alert_levels: ["info" as const] },
];

function chatWith(results: (r: ChatSendRequest) => Array<{ target: string; delivered: boolean; detail: string }>) {
  const sent: ChatSendRequest[] = [];
  const reads: string[] = [];
  const ctx = handlerContext({
    chat: { send: async (r) => (sent.push(r), { ok: true as const, value: results(r) }) },
    media: { read: async (p: string) => (reads.push(p), new Uint8Array([1, 2, 3])), recentFrames: async () => ({ ok: false as const, reason: "x" }) },
  });
  return { sent, reads, ctx };
}

describe("chat_app channel handler", () => {
  it("picks the targets whose levels include the level (empty = all)", () => {
    assert.deepEqual(
      targetsFor(TARGETS, "emergency").map((t) => t.name),
      ["Anna", "Ben"],
    );
    assert.deepEqual(
      targetsFor(TARGETS, "info").map((t) => t.name),
      ["Ben", "Nurse"],
    );
  });

  it("sends the text and the first frame with the alert to the chosen targets; delivered when one chat got it", async () => {
    const { sent, reads, ctx } = chatWith((r) =>
      r.targets.map((t, i) => ({ target: t.name, delivered: i === 0, detail: i === 0 ? "message 1" : "chat not found (400)" })),
    );
    const r = await handler(ctx, message(), spec.config.parse({ targets: TARGETS, max_image_side: 800 }));
    assert.deepEqual(reads, ["media/cam/1.jpg"]);
    assert.equal(sent.length, 1);
    assert.deepEqual(
      sent[0]!.targets.map((t) => t.name),
      ["Anna", "Ben"],
    );
    assert.equal(sent[0]!.alert_id, 9);
    assert.equal(sent[0]!.max_image_side, 800);
    assert.ok(sent[0]!.photo);
    assert.equal(r.delivered, true);
    assert.equal(r.detail, "Anna: delivered; Ben: chat not found (400)");
  });

  it("no photo with include_image false; no target for the level is not delivered, saying so", async () => {
    const { sent, reads, ctx } = chatWith((r) => r.targets.map((t) => ({ target: t.name, delivered: true, detail: "ok" })));
    await handler(ctx, message(), spec.config.parse({ targets: TARGETS, include_image: false }));
    assert.equal(reads.length, 0);
    assert.equal(sent[0]!.photo, null);
    const none = await handler(ctx, message({ alert_level: "reminder" }), spec.config.parse({ targets: [TARGETS[0]!] }));
    assert.deepEqual(none, { channel: "chat_app", delivered: false, detail: "no family chat is set up for the reminder level" });
  });
});
