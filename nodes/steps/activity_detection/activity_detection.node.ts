import { z } from "zod";
import { defineStep } from "../../_kit/define";
import { template } from "../../_kit/fields";

export const spec = defineStep({
  type: "activity_detection",
  displayName: "Record activity",
  category: "action",
  description: "Records one activity (eating, medication, …) for a person in the activity log.",
  version: 1,
  requiredToRun: ["activity_type"],
  config: z
    .object({
      activity_type: template("Activity to record, e.g. eating, sleeping, medication; any text (required)").default(""),
      person_id: template("Who did it; empty records an unknown person").optional(),
      room_name: template("Where; empty = the trigger's room").optional(),
      confidence: z
        .union([z.number().min(0).max(1), template("Confidence from pipeline data, e.g. {{logic_response.confidence}}")])
        .default(0.8)
        .describe("Confidence 0–1, or a template that renders to one"),
      capture_scene_description: z.boolean().default(false).describe("Save the upstream vision output as metadata_json.scene_description"),
      scene_description_key: z.string().min(1).default("vision_response").describe("pipeline_data key read when capturing the scene description"),
      metadata_extra: template("JSON object merged into the record's metadata_json", { multiline: true }).optional(),
      trigger_cooloff: z.boolean().default(true).describe("Mark the run cool-off-worthy"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "detected_activities", type: "list", description: "The recorded activity (one entry)" },
    { key: "_cooloff_triggered", type: "boolean", description: "Set when trigger_cooloff is on" },
  ],
  palette: { color: "#FDD0A2", icon: "font-awesome/fa-check-square-o" },
});
