import { z } from "zod";
import { defineStep } from "../../_kit/define";

/** Object-trend severities, lowest first. */
export const TREND_SEVERITIES = ["ok", "info", "warning", "critical"] as const;

export const spec = defineStep({
  type: "object_trend_analysis",
  displayName: "Object trends",
  category: "perception",
  description: "Reads room-level object trends (clutter, persistent and novel objects, anomalies) from semantic memory.",
  version: 1,
  config: z
    .object({
      room_ids: z.array(z.string()).default([]).describe("Rooms to read; empty = the trigger's room"),
      include_snapshots_hours: z.number().min(0).default(0).describe("Hours of hourly snapshots to fetch as well; 0 = none"),
      severity_threshold: z.enum(TREND_SEVERITIES).default("info").describe("Anomalies below this severity are left out"),
      output_key: z.string().min(1).default("room_trends").describe("Prefix of the keys written to pipeline_data"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    {
      key: "room_trends",
      type: "object",
      description: "Room id to clutter_score, trend_direction, overall_severity, persistent_objects, novel_objects, anomalies (key = output_key)",
    },
    { key: "room_trends_any_warning", type: "boolean", description: "Some room is at warning or above (prefix = output_key)" },
    { key: "room_trends_max_severity", type: "string", description: "Highest room severity (prefix = output_key)" },
    { key: "room_trends_summary", type: "string", description: "One-line summary (prefix = output_key)" },
  ],
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-line-chart" },
});
