import type { z } from "zod";
import type { HandlerContext, StepHandler } from "../../_kit/handler-types";
import { blankToNull, isoAt } from "../../_kit/values";
import type { spec } from "./activity_detection.node";

type Config = z.output<typeof spec.config>;

const DEFAULT_CONFIDENCE = 0.8;

/**
 * Records one activity with its templates rendered against pipeline_data. A confidence
 * template that does not render to a number in 0–1, or a metadata_extra that is not a JSON
 * object, is logged and replaced by the default: the activity itself is the point, and losing
 * "grandma took her pills" over a typo would be worse than a default confidence.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const data = input.pipeline_data;
  const { activities, conditions, templates } = ctx.services;
  const render = (t: string | undefined): string | null => blankToNull(t === undefined ? undefined : templates.render(t, data));
  const activityType = render(config.activity_type);
  if (!activityType) return { success: false, error: "activity_type rendered empty; nothing recorded" };

  const metadata: Record<string, unknown> = { ...extraMetadata(ctx, config.metadata_extra, data) };
  if (config.capture_scene_description) {
    const scene = conditions.resolvePath(data, config.scene_description_key);
    if (scene !== null && scene !== "") metadata.scene_description = scene;
  }
  const activity = await activities.record({
    timestamp: isoAt(ctx.clock.now()),
    activity_type: activityType,
    person_id: render(config.person_id),
    room_name: render(config.room_name) ?? input.trigger.room_name,
    confidence: confidence(ctx, config.confidence, data),
    metadata_json: metadata,
    rule_id: input.rule_id,
    execution_id: input.execution_id,
  });
  return { data: { detected_activities: [activity], ...(config.trigger_cooloff ? { _cooloff_triggered: true } : {}) } };
};

function confidence(ctx: HandlerContext, value: number | string, data: Record<string, unknown>): number {
  if (typeof value === "number") return value;
  const text = ctx.services.templates.render(value, data).trim();
  const n = Number(text);
  if (text !== "" && Number.isFinite(n) && n >= 0 && n <= 1) return n;
  ctx.log.warn({ confidence: text }, `activity_detection: confidence is not a number 0-1; recorded ${DEFAULT_CONFIDENCE}`);
  return DEFAULT_CONFIDENCE;
}

function extraMetadata(ctx: HandlerContext, template: string | undefined, data: Record<string, unknown>): Record<string, unknown> {
  const text = template === undefined ? "" : ctx.services.templates.render(template, data).trim();
  if (text === "") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below, with the text that failed
  }
  ctx.log.warn({ metadata_extra: text }, "activity_detection: metadata_extra is not a JSON object; left out");
  return {};
}
