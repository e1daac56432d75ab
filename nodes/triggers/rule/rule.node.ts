/**
 * The rule trigger: the first node of every rule tab. Its config holds the rule's own
 * fields (how it fires, cool-off, daily limit), so the rule lives entirely in its flow.
 */
import { validateDetailed } from "node-cron";
import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { PART_CHANGES, PART_KINDS } from "../../_kit/part-kinds";

export const TRIGGER_TYPES = [
  "sensor_event",
  "cron",
  "manual",
  "webhook",
  "occupancy_duration",
  "chat_app",
  "cts_window",
  "dementia_signal",
  "system_health",
] as const;

/** Why a cron expression does not parse, or null when it does. */
export function cronProblem(expression: string): string | null {
  const result = validateDetailed(expression) as { valid: boolean; errors?: CronError[] };
  if (result.valid) return null;
  const why = (result.errors ?? []).map(cronWhy).join("; ");
  return `not a valid cron expression${why ? `: ${why}` : ""}`;
}

interface CronError {
  field: string;
  value?: string;
  message: string;
}

/** What each of a cron expression's fields may hold, in the words the editor's form shows. */
const CRON_FIELDS: Record<string, string> = {
  second: "a second (0–59)",
  minute: "a minute (0–59)",
  hour: "an hour (0–23)",
  dayOfMonth: "a day of the month (1–31)",
  month: "a month (1–12 or jan–dec)",
  dayOfWeek: "a day of the week (0–7 or sun–sat)",
};

// The library says "25 is a invalid expression for hour": a caregiver reads which field and what it may hold.
function cronWhy(e: CronError): string {
  const what = CRON_FIELDS[e.field];
  if (what && e.value !== undefined) return `'${e.value}' is not ${what}`;
  const fields = /expected 5 or 6 fields but got (\d+)/.exec(e.message);
  if (fields) return `it has ${fields[1]} part${fields[1] === "1" ? "" : "s"}; a schedule has 5 (minute hour day month weekday), or 6 with the second first`;
  return e.message;
}

/**
 * Runs per local day at most. Empty or 0 means no limit (0 is how the original project's
 * bundles and API say it), stored as null.
 */
export const maxDailyTriggers = z
  .number()
  .int()
  .min(0, "use 0 or leave it empty for no limit")
  .nullable()
  .transform((v) => (v === 0 ? null : v));

/** A chat command without its slash, as the chat service allows them (lower case, digits, underscore). */
export const chatCommand = z
  .string()
  .transform((s) => s.replace(/^\//, "").toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9_]{1,32}$/, "a command is 1-32 letters, digits or underscores, e.g. status"));

/**
 * A `cts_window` rule's window (the original's window trigger: thresholds over the frames of the
 * cameras and rooms it lists). Null on a cts_window rule means these defaults.
 */
export const ctsWindowConfigSchema = z
  .object({
    duration_s: z.number().min(1).max(3600).default(10).describe("Length of each window, in seconds"),
    sample_period_s: z.number().positive().default(1).describe("One frame per camera and this many seconds"),
    cameras: z.array(householdRef("cts_camera", "A tracking camera")).default([]).describe("Tracking camera ids; empty = every tracking camera"),
    rooms: z.array(householdRef("room", "A room of the household")).default([]).describe("Room names; empty = every room"),
    max_frames: z.number().int().min(1).max(500).default(30).describe("Most frames in the run's window; more are thinned"),
    min_detections: z.number().int().min(0).default(1).describe("Detections the window needs to fire the rule"),
    min_identities: z.number().int().min(0).default(1).describe("Distinct known people the window needs to fire the rule"),
  })
  .strict();

export type CtsWindowConfig = z.output<typeof ctsWindowConfigSchema>;

/**
 * A `system_health` rule's parts and changes (issue 44 §2): careflow's own parts (a camera
 * gone quiet, the hub link down) fire it once per change. Null on a system_health rule means
 * these defaults: every part, going silent or down, and coming back.
 */
export const systemHealthConfigSchema = z
  .object({
    part_kinds: z.array(z.enum(PART_KINDS)).default([]).describe("Kinds of part watched (camera, display, hub, ...); empty, with no part_id, = every part"),
    part_id: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe("One part by its id, e.g. device:kitchen_cam or hub (as the parts health lists them); with part kinds, either matches"),
    changes: z
      .array(z.enum(PART_CHANGES))
      .min(1, "name at least one change")
      .default(["went_silent", "went_down", "came_back"])
      .describe("The changes that fire the rule; came_back only after a change of this rule fired"),
    min_minutes: z.number().min(0).max(1440).default(0).describe("Minutes the new state must have lasted before the rule fires"),
  })
  .strict();

export type SystemHealthConfig = z.output<typeof systemHealthConfigSchema>;

export const triggerConfigSchema = z
  .object({
    trigger_type: z.enum(TRIGGER_TYPES).default("manual").describe("How the rule fires"),
    primary_sensor_id: householdRef("sensor", "Triggering sensor; required for cron and occupancy_duration").min(1).nullable().default(null),
    schedule_cron: z.string().nullable().default(null).describe("Cron expression in the household timezone (cron triggers)"),
    cool_off_minutes: z.number().int().min(0).default(0).describe("Minimum minutes between completed runs"),
    max_daily_triggers: maxDailyTriggers.default(null).describe("Runs per local day at most; empty or 0 = no limit"),
    occupancy_config: z
      .object({ min_minutes: z.number().positive().describe("Minutes of continuous occupancy") })
      .strict()
      .nullable()
      .default(null)
      .describe("For occupancy_duration triggers"),
    cts_window_config: ctsWindowConfigSchema
      .nullable()
      .default(null)
      .describe("For cts_window rules: the window and what it must show; empty = a 10 s window of every camera with one known person"),
    system_health_config: systemHealthConfigSchema
      .nullable()
      .default(null)
      .describe("For system_health rules: which of careflow's parts, which changes, how long; empty = every part going silent or down, and back"),
    chat_command: chatCommand
      .nullable()
      .default(null)
      .describe("For chat_app rules: the command it answers, without the slash (e.g. status); empty = every configured command"),
    max_concurrent_executions: z.number().int().min(1).max(20).default(1).describe("Runs of this rule at once"),
    execution_timeout_minutes: z.number().positive().max(1440).default(5).describe("Whole-run timeout, waits excluded"),
  })
  .strict()
  .superRefine((c, issues) => {
    const need = (path: string, message: string) => issues.addIssue({ code: "custom", path: [path], message });
    if ((c.trigger_type === "cron" || c.trigger_type === "occupancy_duration") && !c.primary_sensor_id) {
      need("primary_sensor_id", `is required for ${c.trigger_type} rules`);
    }
    if (c.trigger_type === "cron") {
      if (!c.schedule_cron) need("schedule_cron", "is required for cron rules");
      else {
        const problem = cronProblem(c.schedule_cron);
        if (problem) need("schedule_cron", problem);
      }
    } else if (c.schedule_cron) {
      const problem = cronProblem(c.schedule_cron);
      if (problem) need("schedule_cron", problem);
    }
    if (c.trigger_type === "occupancy_duration" && !c.occupancy_config) need("occupancy_config", "is required for occupancy_duration rules ({min_minutes})");
  });

export type TriggerConfig = z.output<typeof triggerConfigSchema>;
