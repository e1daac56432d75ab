import type { z } from "zod";
import type { SceneAnalysis } from "../../../vocabulary/scenes";
import type { StepHandler, StepResult } from "../../_kit/handler-types";
import type { spec } from "./scene_analysis.node";

type Config = z.output<typeof spec.config>;

/** The spec's result when nothing could be analysed: every key empty. */
export const EMPTY_SCENE = {
  scene_detections: [],
  scene_description: "",
  scene_embedding: [],
  scene_hazards: [],
  scene_detector_available: false,
  scene_describer_available: false,
  scene_embedder_available: false,
} as const;

const empty = (why: string): StepResult => ({ data: { ...EMPTY_SCENE }, warning: `scene analysis empty: ${why}` });

/**
 * Sends the trigger's images (up to max_images, one request each) to the scene-analysis
 * service and writes what it found. The step always continues: with the service disabled or
 * unreachable, or no image to send, every key is empty and the warning says why.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const paths = input.trigger.media_paths.slice(0, config.max_images);
  if (!paths.length) return empty("the trigger brought no images");
  const request = {
    run_detect: config.run_detect,
    run_describe: config.run_describe,
    run_embed: config.run_embed,
    run_hazards: config.run_hazards,
    sensor_id: input.trigger.sensor_id,
  };
  const results: SceneAnalysis[] = [];
  const unreadable: string[] = [];
  for (const p of paths) {
    const image = await ctx.services.media.read(p);
    if (!image) {
      unreadable.push(p);
      continue;
    }
    const answer = await ctx.services.scene.analyze(image, request, ctx.signal);
    if (!answer.ok) {
      ctx.log.debug({ reason: answer.reason }, "scene_analysis: service unavailable");
      return empty(answer.reason);
    }
    results.push(answer.value);
  }
  if (!results.length) return empty(`no image could be read (${unreadable.join(", ")})`);
  const merged = merge(results);
  return {
    data: {
      scene_detections: merged.detections,
      scene_description: merged.description,
      scene_embedding: config.run_embed ? merged.embedding : [],
      scene_hazards: merged.hazards,
      scene_detector_available: merged.detector_available,
      scene_describer_available: merged.describer_available,
      scene_embedder_available: merged.embedder_available,
    },
    trace: { images: paths.filter((p) => !unreadable.includes(p)) },
    ...(unreadable.length ? { warning: `scene analysis skipped images it could not read: ${unreadable.join(", ")}` } : {}),
  };
};

/** Several images' analyses as one: lists joined, captions one per line, the first image's embedding. */
function merge(results: readonly SceneAnalysis[]): SceneAnalysis {
  if (results.length === 1) return results[0];
  return {
    detections: results.flatMap((r) => r.detections),
    description: results
      .map((r) => r.description)
      .filter(Boolean)
      .join("\n"),
    embedding: results.find((r) => r.embedding.length)?.embedding ?? [],
    hazards: results.flatMap((r) => r.hazards),
    detector_available: results.some((r) => r.detector_available),
    describer_available: results.some((r) => r.describer_available),
    embedder_available: results.some((r) => r.embedder_available),
  };
}
