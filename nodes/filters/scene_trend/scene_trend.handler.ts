import type { z } from "zod";
import { TREND_SEVERITIES } from "../../steps/object_trend_analysis/object_trend_analysis.node";
import type { RoomTrend } from "../../../vocabulary/tracking";
import type { FilterHandler } from "../../_kit/handler-types";
import { atLeast } from "../../_kit/values";
import type { spec } from "./scene_trend.node";

type Config = z.output<typeof spec.config>;

/**
 * Passes when one of the rooms has an overall severity at `min_severity` or above. A room
 * is named by its semantic-memory id or, as caregivers tend to type it, its name; with no
 * rooms listed, the trigger's room is meant.
 */
export const handler: FilterHandler<Config> = async (ctx, input, config) => {
  const wanted = config.room_ids.length > 0 ? config.room_ids : input.trigger.room_name ? [input.trigger.room_name] : [];
  if (wanted.length === 0) return { pass: false, reason: "scene_trend: no room_ids are set and the event has no room" };
  const { names, tracking } = ctx.services;
  const trends = await tracking.roomTrends();
  const isWanted = (t: RoomTrend): boolean => wanted.some((w) => t.room_id === w || names.same(t.room_name, w) || names.same(t.room_id, w));
  const rooms = trends.filter(isWanted);
  const label = (t: RoomTrend): string => t.room_name ?? t.room_id;
  const hit = rooms.find((t) => atLeast(TREND_SEVERITIES, t.overall_severity, config.min_severity));
  if (hit) return { pass: true, reason: `scene_trend: ${label(hit)} is at ${hit.overall_severity} (at least ${config.min_severity})` };
  if (rooms.length === 0) return { pass: false, reason: `scene_trend: no trend data for ${wanted.join(", ")}` };
  const levels = rooms.map((t) => `${label(t)} is at ${t.overall_severity}`).join(", ");
  return { pass: false, reason: `scene_trend: ${levels}, below ${config.min_severity}` };
};
