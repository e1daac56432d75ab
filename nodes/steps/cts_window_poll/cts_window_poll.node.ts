import { z } from "zod";
import { defineStep } from "../../_kit/define";
import { householdRef } from "../../_kit/fields";

export const spec = defineStep({
  type: "cts_window_poll",
  displayName: "Tracking window",
  category: "perception",
  description: "Pulls a window of recent continuous-tracking frames with detections, identities and room dwells.",
  version: 1,
  config: z
    .object({
      duration_s: z.number().positive().default(10).describe("Length of the window, in seconds"),
      sample_period_s: z.number().positive().default(1).describe("One frame per this many seconds"),
      cameras: z
        .array(householdRef("cts_camera", "A tracking camera"))
        .default([])
        .describe("Tracking camera ids (not camera sensor ids); empty = all tracking cameras"),
      rooms: z.array(householdRef("room", "A room of the household")).default([]).describe("Room names to include; empty = all"),
      lookback_s: z.number().min(0).default(5).describe("Seconds before now the window may reach back"),
      lookahead_s: z.number().min(0).default(5).describe("Seconds after now the window may wait for"),
      include_scene: z.boolean().default(false).describe("Add scene captions to frames"),
      include_pose: z.boolean().default(false).describe("Add poses; needs a pose pipeline that is not wired yet"),
      max_frames: z.number().int().min(1).default(30).describe("Most frames kept; more are downsampled"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "trigger_id", type: "string", description: "Id of the window" },
    { key: "window_start", type: "string", description: "Start of the window (ISO-8601 UTC)" },
    { key: "window_end", type: "string", description: "End of the window (ISO-8601 UTC)" },
    { key: "cameras", type: "list", description: "Tracking cameras in the window" },
    { key: "rooms", type: "list", description: "Rooms in the window" },
    { key: "frames", type: "list", description: "Frames with detections, identities and optional scene_caption" },
    { key: "summary", type: "object", description: "distinct_identities, detection_count, rooms" },
    { key: "partial", type: "boolean", description: "True when the window source is not wired or frames were trimmed" },
  ],
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-film" },
});
