/**
 * The config of `llm_call`, shared with the legacy types that run through its code
 * (`vision_analysis`, `logic_reasoning`, `translation`); only the default output_key differs.
 */
import { z } from "zod";
import { template } from "../../_kit/fields";

export const IMAGE_SOURCES = ["none", "trigger", "additional", "both"] as const;
export const RESPONSE_FORMATS = ["text", "json_schema", "json_free"] as const;

/** ISO-8601 date-time (offset optional) or a local time of day `HH:MM[:SS]`. */
const ISO_8601 = /^(\d{4}-\d{2}-\d{2}[T ])?([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const instant = (description: string) => z.string().regex(ISO_8601, "use ISO-8601 (2026-11-22T08:00:00Z) or HH:MM").optional().describe(description);

export const imageTimeFilter = z
  .object({
    since_minutes: z.number().positive().optional().describe("Only images from the last N minutes"),
    time_start: instant("Only images taken at or after this time"),
    time_end: instant("Only images taken at or before this time"),
  })
  .strict();

/** The llm_call config with `defaultOutputKey` as the default of `output_key`. */
export const llmCallConfig = (defaultOutputKey: string) =>
  z
    .object({
      model_id: z.string().default("").describe("Id of an `llm.models` entry; required to run"),
      prompt: template("Prompt sent to the model", { multiline: true }).default(""),
      special_instructions: template("Prepended to the prompt before template rendering", { multiline: true }).optional(),
      include_context: z
        .array(z.string())
        .default([])
        .describe("pipeline_data keys added as context; empty = person_detections and vision_response when present"),
      image_source: z.enum(IMAGE_SOURCES).default("none").describe("Images sent with the prompt; skipped silently when the model lacks the vision capability"),
      max_images: z.number().int().min(1).default(5).describe("Hard cap on images sent to the model"),
      additional_sensor_ids: z.array(z.string()).default([]).describe("Cameras for `additional`/`both`; their order is the group order when sorting by sensor"),
      additional_room_names: z.array(z.string()).default([]).describe("Rooms whose cameras add images (unordered)"),
      images_per_sensor: z.number().int().min(1).default(3).describe("Images taken from each additional camera"),
      sort_by_sensor_then_time: z.boolean().default(false).describe("Group images by sensor in list order, oldest first within each group"),
      image_time_filter: imageTimeFilter.optional().describe("Restrict additional images to a time window"),
      response_format: z.enum(RESPONSE_FORMATS).default("text").describe("`text` writes a string; `json_schema` and `json_free` write a parsed object"),
      response_schema: z.string().optional().describe("Natural-language description of the answer's format, appended to the prompt"),
      response_json_schema: z
        .string()
        .optional()
        .describe("JSON Schema of the answer; sent as guided_json to guided-decoding models, otherwise added to the prompt"),
      output_key: z.string().min(1).default(defaultOutputKey).describe("pipeline_data key the answer is written to"),
      hallucination_marker: z.string().optional().describe("When the answer contains this text the call is retried, up to the model's max_retries"),
    })
    .strict()
    .superRefine((c, ctx) => {
      if (c.response_json_schema !== undefined && c.response_json_schema.trim() !== "") {
        let parsed: unknown;
        try {
          parsed = JSON.parse(c.response_json_schema);
        } catch {
          ctx.addIssue({ code: "custom", path: ["response_json_schema"], message: "is not valid JSON" });
          return;
        }
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
          ctx.addIssue({ code: "custom", path: ["response_json_schema"], message: "must be a JSON object (a JSON Schema)" });
        }
      } else if (c.response_format === "json_schema") {
        ctx.addIssue({ code: "custom", path: ["response_json_schema"], message: "is required when response_format is json_schema" });
      }
    });

/** What llm_call and the legacy types write, for a given default output_key. */
export const llmCallOutputs = (defaultOutputKey: string) =>
  [
    {
      key: defaultOutputKey,
      type: "string | object",
      description: "The model's answer: a string for `text`, a parsed object for `json_schema` and `json_free` (key = output_key)",
    },
    {
      key: "notification_suppressed",
      type: "boolean",
      description: "True when output_key is `logic_response` and the answer says `is_notification_needed: false`",
    },
  ] as const;
