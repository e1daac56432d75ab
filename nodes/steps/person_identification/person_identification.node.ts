import { z } from "zod";
import { defineStep } from "../../_kit/define";

/** Comma-separated person ids (1–64 lowercase letters, digits or underscores each). */
const PERSON_ID_LIST = /^\s*([a-z0-9_]{1,64}\s*(,\s*[a-z0-9_]{1,64}\s*)*)?$/;

export const spec = defineStep({
  type: "person_identification",
  displayName: "Person identification",
  category: "perception",
  description: "Recognises household members in the trigger's frames, records sightings and updates where they are.",
  version: 1,
  config: z
    .object({
      include_annotated_image: z.boolean().default(false).describe("Also return the frames with boxes and name labels"),
      confidence_threshold: z.number().min(0).max(1).optional().describe("Minimum recognition confidence (0–1); empty = the household setting (0.4)"),
      target_persons: z
        .string()
        .regex(PERSON_ID_LIST, "use comma-separated person ids, e.g. `alice,bob`")
        .optional()
        .describe("Only look for these people: comma-separated person ids; empty = everyone enrolled"),
      include_motion: z.boolean().default(false).describe("Add motion direction labels (left-to-right, towards-camera, …)"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    {
      key: "person_detections",
      type: "list",
      description: "One entry per person seen: identity, confidence, bbox, person_id and name",
    },
    { key: "annotated_images", type: "list", description: "Frames with boxes and labels (only with include_annotated_image)" },
    { key: "room_transitions", type: "list", description: "Room changes derived from motion direction and the camera's movement map" },
  ],
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-user" },
});
