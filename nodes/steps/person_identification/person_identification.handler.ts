import type { z } from "zod";
import type { StepHandler, StepResult } from "../../_kit/handler-types";
import type { spec } from "./person_identification.node";

type Config = z.output<typeof spec.config>;

const empty = (config: Config, why: string, success = true): StepResult => ({
  ...(success ? {} : { success: false }),
  data: {
    person_detections: [],
    ...(config.include_annotated_image ? { annotated_images: [] } : {}),
    room_transitions: [],
  },
  warning: `nobody identified: ${why}`,
});

/**
 * Identifies the faces in the trigger's frames (the built-in engine or the household's
 * identification service, `recognition.backend`), and every face identified is recorded as a
 * sighting by the identity service. Graceful degradation (spec "Errors"): when identification
 * cannot run (the model failed to load, the service is down) the step returns empty results
 * with success=false and a warning saying why, and the run goes on.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const paths = input.trigger.media_paths;
  if (!paths.length) return empty(config, "the trigger brought no frames");
  const targets = (config.target_persons ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const answer = await ctx.services.identity.identify(
    {
      media_paths: paths,
      sensor_id: input.trigger.sensor_id,
      room_name: input.trigger.room_name,
      ...(config.confidence_threshold !== undefined ? { threshold: config.confidence_threshold } : {}),
      ...(targets.length ? { target_persons: targets } : {}),
      include_annotated_image: config.include_annotated_image,
      include_motion: config.include_motion,
    },
    ctx.signal,
  );
  if (!answer.ok) {
    ctx.log.warn({ reason: answer.reason }, "person_identification: identification unavailable");
    return { ...empty(config, answer.reason, false), should_continue: true };
  }
  const v = answer.value;
  return {
    data: {
      person_detections: v.person_detections,
      ...(config.include_annotated_image ? { annotated_images: v.annotated_images } : {}),
      room_transitions: config.include_motion ? v.room_transitions : [],
    },
    trace: { images: [...paths, ...v.annotated_images], message: `${v.person_detections.length} face(s) reported (${v.backend})` },
    ...(v.skipped.length ? { warning: `some frames were skipped: ${v.skipped.join("; ")}` } : {}),
  };
};
