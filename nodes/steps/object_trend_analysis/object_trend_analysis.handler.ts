import type { z } from "zod";
import type { MemoryRoomTrend } from "../../../vocabulary/memory";
import type { StepHandler, StepResult } from "../../_kit/handler-types";
import { TREND_SEVERITIES, type spec } from "./object_trend_analysis.node";

type Config = z.output<typeof spec.config>;

const NO_DATA = "No trend data available.";
const rank = (severity: unknown): number => Math.max(0, TREND_SEVERITIES.indexOf(severity as (typeof TREND_SEVERITIES)[number]));

/** The four keys under the step's output_key. */
function output(k: string, trends: Record<string, unknown>, maxSeverity: string, anyWarning: boolean, summary: string): Record<string, unknown> {
  return { [k]: trends, [`${k}_any_warning`]: anyWarning, [`${k}_max_severity`]: maxSeverity, [`${k}_summary`]: summary };
}

const empty = (k: string, why: string): StepResult => ({ data: output(k, {}, "ok", false, NO_DATA), warning: `object trends empty: ${why}` });

/**
 * Reads each room's current trend from semantic memory (the trigger's room when room_ids is
 * empty), strips anomalies below severity_threshold, and adds hourly snapshots when asked.
 * With the service disabled or unreachable, or no trend for any room, the results are empty,
 * the step succeeds and its warning says why.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const k = config.output_key;
  const rooms = config.room_ids.length ? config.room_ids : input.trigger.room_name ? [input.trigger.room_name] : [];
  if (!rooms.length) return empty(k, "no room to read (room_ids is empty and the trigger has no room)");
  const threshold = rank(config.severity_threshold);
  const trends: Record<string, Record<string, unknown>> = {};
  let maxSeverity = "ok";
  for (const room of rooms) {
    const answer = await ctx.services.memory.roomTrend(room, ctx.signal);
    if (!answer.ok) {
      ctx.log.debug({ reason: answer.reason }, "object_trend_analysis: semantic memory unavailable");
      return empty(k, answer.reason);
    }
    if (!answer.value) continue;
    const trend = answer.value;
    const entry: Record<string, unknown> = roomEntry(trend, threshold);
    if (config.include_snapshots_hours > 0) {
      const snaps = await ctx.services.memory.snapshots(room, config.include_snapshots_hours, ctx.signal);
      if (!snaps.ok) return empty(k, snaps.reason);
      entry.snapshots = snaps.value;
    }
    trends[room] = entry;
    if (rank(trend.overall_severity) > rank(maxSeverity)) maxSeverity = trend.overall_severity;
  }
  if (!Object.keys(trends).length) return empty(k, `semantic memory has no trend for ${rooms.join(", ")}`);
  return { data: output(k, trends, maxSeverity, rank(maxSeverity) >= rank("warning"), summary(trends)) };
};

function roomEntry(trend: MemoryRoomTrend, threshold: number): Record<string, unknown> {
  return {
    clutter_score: trend.clutter_score,
    trend_direction: trend.trend_direction,
    overall_severity: trend.overall_severity,
    persistent_objects: trend.persistent_objects,
    novel_objects: trend.novel_objects,
    anomalies: trend.anomalies.filter((a) => rank(a.severity ?? "ok") >= threshold),
  };
}

/** One line: `kitchen: WARNING clutter (z=2.1, rising trend) | Persistent: … | Novel: …; hall: OK …`. */
function summary(trends: Record<string, Record<string, unknown>>): string {
  return Object.entries(trends)
    .map(([room, t]) => {
      const severity = String(t.overall_severity);
      const parts = [`${room}: ${severity.toUpperCase()} clutter (z=${Number(t.clutter_score).toFixed(1)}, ${String(t.trend_direction)} trend)`];
      const persistent = t.persistent_objects as string[];
      const novel = t.novel_objects as string[];
      if (persistent.length) parts.push(`Persistent: ${persistent.slice(0, 5).join(", ")}`);
      if (novel.length) parts.push(`Novel: ${novel.slice(0, 5).join(", ")}`);
      return parts.join(" | ");
    })
    .join("; ");
}
