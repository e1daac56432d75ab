import { z } from "zod";
import { defineFilter } from "../../_kit/define";
import { TREND_SEVERITIES } from "../../steps/object_trend_analysis/object_trend_analysis.node";

export const spec = defineFilter({
  type: "scene_trend",
  displayName: "Scene trend",
  description: "Lets the rule fire only when a room's object-trend severity reaches a level.",
  version: 1,
  config: z
    .object({
      room_ids: z.array(z.string()).default([]).describe("Rooms to check; empty = the trigger's room"),
      min_severity: z.enum(TREND_SEVERITIES).default("warning").describe("Lowest overall severity that fires the rule"),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "font-awesome/fa-line-chart" },
});
