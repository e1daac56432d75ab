import assert from "node:assert/strict";
import type { SceneAnalysis, SceneAnalysisRequest } from "../../../../vocabulary/scenes";
import { handler, EMPTY_SCENE } from "../../../../nodes/steps/scene_analysis/scene_analysis.handler";
import { spec } from "../../../../nodes/steps/scene_analysis/scene_analysis.node";
import { configOf } from "../../filters/_support/tracking-db";
import { handlerContext, stepInput, trigger } from "../../handler-context";

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const knife = { label: "knife", confidence: 0.9, bbox: [1, 2, 3, 4], class_id: 43 };
const analysis = (over: Partial<SceneAnalysis> = {}): SceneAnalysis => ({
  detections: [knife],
  description: "a kitchen",
  embedding: [1, 0, 0],
  hazards: [{ name: "knife_near_edge", severity: "warning", description: "careful", detection: knife }],
  detector_available: true,
  describer_available: true,
  embedder_available: true,
  ...over,
});

describe("scene_analysis step handler", () => {
  const input = (media_paths: string[]) => ({
    ...stepInput({}, "scene_analysis"),
    trigger: trigger({ trigger_type: "sensor_event", sensor_id: "kitchen_cam", media_paths }),
  });

  it("sends the trigger's first image with the config's flags and writes the spec's keys", async () => {
    const sent: Array<{ image: Uint8Array; request: SceneAnalysisRequest }> = [];
    const read: string[] = [];
    const ctx = handlerContext({
      media: { read: async (p) => (read.push(p), JPEG) },
      scene: { analyze: async (image, request) => (sent.push({ image, request }), { ok: true, value: analysis() }) },
    });
    const r = await handler(ctx, input(["media/a.jpg", "media/b.jpg"]), configOf(spec, { run_embed: true }));
    assert.deepEqual(read, ["media/a.jpg"], "max_images 1 by default");
    assert.deepEqual(sent[0].request, { run_detect: true, run_describe: true, run_embed: true, run_hazards: true, sensor_id: "kitchen_cam" });
    assert.equal(r.warning, undefined);
    assert.deepEqual(r.data, {
      scene_detections: [knife],
      scene_description: "a kitchen",
      scene_embedding: [1, 0, 0],
      scene_hazards: analysis().hazards,
      scene_detector_available: true,
      scene_describer_available: true,
      scene_embedder_available: true,
    });
    assert.deepEqual(r.trace?.images, ["media/a.jpg"]);
  });

  it("leaves the embedding empty when run_embed is off, and joins several images", async () => {
    const ctx = handlerContext({
      media: { read: async () => JPEG },
      scene: { analyze: async () => ({ ok: true, value: analysis() }) },
    });
    const r = await handler(ctx, input(["a.jpg", "b.jpg", "c.jpg"]), configOf(spec, { max_images: 2 }));
    assert.deepEqual(r.data?.scene_embedding, []);
    assert.equal((r.data?.scene_detections as unknown[]).length, 2);
    assert.equal(r.data?.scene_description, "a kitchen\na kitchen");
  });

  it("degrades to the empty keys with a warning when the service is unavailable", async () => {
    const ctx = handlerContext({
      media: { read: async () => JPEG },
      scene: { analyze: async () => ({ ok: false, reason: "scene analysis is disabled (scene_analysis.enabled is false)" }) },
    });
    const r = await handler(ctx, input(["a.jpg"]), configOf(spec, {}));
    assert.notEqual(r.success, false);
    assert.deepEqual(r.data, { ...EMPTY_SCENE });
    assert.match(r.warning ?? "", /scene_analysis.enabled is false/);
  });

  it("degrades when the trigger brought no image or none can be read", async () => {
    const none = await handler(handlerContext(), input([]), configOf(spec, {}));
    assert.deepEqual(none.data, { ...EMPTY_SCENE });
    assert.match(none.warning ?? "", /no images/);
    const unreadable = await handler(handlerContext({ media: { read: async () => null } }), input(["gone.jpg"]), configOf(spec, {}));
    assert.deepEqual(unreadable.data, { ...EMPTY_SCENE });
    assert.match(unreadable.warning ?? "", /gone\.jpg/);
  });
});
