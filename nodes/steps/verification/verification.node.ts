import { z } from "zod";
import { defineStep } from "../../_kit/define";
import { template } from "../../_kit/fields";

/** ISO-8601 date-time (offset optional) or a local time of day `HH:MM[:SS]`. */
const ISO_8601 = /^(\d{4}-\d{2}-\d{2}[T ])?([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const windowEdge = (description: string) => z.string().regex(ISO_8601, "use ISO-8601 (2026-11-22T08:00:00) or HH:MM").optional().describe(description);

export const verificationCondition = z
  .object({
    activity_type: z.string().min(1).describe("Activity to look for (required)"),
    person_id: template("Whose activity; empty = anyone").optional(),
    room_name: template("Where; empty = any room").optional(),
    completed: z.boolean().default(true).describe("True: the activity must be found; false: it must not be"),
    within_minutes: z.number().positive().optional().describe("Only records from the last N minutes"),
    window_start: windowEdge("Start of a daily window; its time is re-anchored to today in the household time zone"),
    window_end: windowEdge("End of that window"),
    min_confidence: z.number().min(0).max(1).default(0.5).describe("Lowest confidence of a matching record"),
  })
  .strict()
  .superRefine((c, ctx) => {
    if ((c.window_start === undefined) !== (c.window_end === undefined)) {
      const missing = c.window_start === undefined ? "window_start" : "window_end";
      ctx.addIssue({ code: "custom", path: [missing], message: "window_start and window_end go together" });
    }
  });

export const spec = defineStep({
  type: "verification",
  displayName: "Verification",
  category: "flow",
  description: "Checks the activity log for expected activities (no model call) and records whether they happened.",
  version: 1,
  config: z
    .object({
      conditions: z.array(verificationCondition).default([]).describe("Activities to look for"),
      match_mode: z.enum(["all", "any"]).default("all").describe("Verified when all conditions match, or any one"),
      re_notify_if_failed: z.boolean().default(false).describe("Notify again when verification fails"),
      re_notify_delay_minutes: z.number().int().min(0).default(5).describe("Minutes to wait before notifying again"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "verification.verified", type: "boolean", description: "The conditions matched per match_mode" },
    { key: "verification.match_mode", type: "string", description: "`all` or `any`" },
    { key: "verification.matched_conditions", type: "list", description: "Conditions that matched" },
    { key: "verification.unmatched_conditions", type: "list", description: "Conditions that did not" },
    {
      key: "verification.re_notify_at",
      type: "string",
      description: "When re_notify_if_failed is on and the check failed: when the run continues (ISO-8601 UTC)",
    },
  ],
  palette: { color: "#E2D96E", icon: "font-awesome/fa-check-circle" },
});
