/**
 * RuleBundle, schema_version 1: a rule with stable string ids (step labels) and the
 * external things it needs listed by name, so it can move between households.
 */
import { z } from "zod";
import { ctsWindowConfigSchema, maxDailyTriggers, systemHealthConfigSchema, TRIGGER_TYPES } from "../../../../../nodes/triggers/rule/rule.node";

export const BUNDLE_SCHEMA_VERSION = 1;

const sensorRef = z.object({ kind: z.literal("sensor").default("sensor"), label: z.string().min(1) }).strict();

export const bundleSchema = z
  .object({
    schema_version: z.number().int().positive(),
    exported_at: z.string().optional(),
    exported_by: z.string().optional(),
    source: z.object({ app: z.string(), app_version: z.string() }).strict().optional(),
    rule: z
      .object({
        name: z.string().trim().min(1).max(200),
        description: z.string().max(4000).default(""),
        enabled: z.boolean().default(true),
        trigger_type: z.enum(TRIGGER_TYPES),
        primary_sensor_ref: sensorRef.nullable().default(null),
        cool_off_minutes: z.number().int().min(0).default(0),
        max_daily_triggers: maxDailyTriggers.default(null),
        webhook_config: z.unknown().optional(),
        occupancy_config: z.object({ min_minutes: z.number().positive() }).strict().nullable().default(null),
        schedule_cron: z.string().nullable().default(null),
        schedule_timezone: z.string().nullable().optional(),
        chat_command: z.string().nullable().optional(),
        cts_window_config: ctsWindowConfigSchema.nullable().optional(),
        system_health_config: systemHealthConfigSchema.nullable().optional(),
        max_concurrent_executions: z.number().int().min(1).max(20).default(1),
        execution_timeout_minutes: z.number().positive().max(1440).default(5),
      })
      .strict(),
    references: z
      .object({
        sensors: z.array(z.string()).default([]),
        persons: z.array(z.string()).default([]),
        channels: z.array(z.string()).default([]),
        llm_models: z.array(z.string()).default([]),
      })
      .strict()
      .prefault({}),
    contexts: z
      .array(
        z
          .object({
            context_type: z.string().min(1),
            schema_version: z.number().int().positive().default(1),
            config: z.record(z.string(), z.unknown()).default({}),
            negate: z.boolean().default(false),
          })
          .strict(),
      )
      .default([]),
    steps: z
      .array(
        z
          .object({
            label: z.string().trim().min(1).max(100),
            step_type: z.string().min(1),
            schema_version: z.number().int().positive().default(1),
            enabled: z.boolean().default(true),
            position_x: z.number().finite().optional(),
            position_y: z.number().finite().optional(),
            config: z.record(z.string(), z.unknown()).default({}),
          })
          .strict(),
      )
      .default([]),
    edges: z
      .array(
        z
          .object({ source_label: z.string(), source_port: z.string().default("main"), target_label: z.string(), target_port: z.string().default("main") })
          .strict(),
      )
      .default([]),
    dependencies: z
      .array(
        z
          .object({ parent_rule_name: z.string().min(1), lookback_minutes: z.number().positive().default(30), require_success: z.boolean().default(true) })
          .strict(),
      )
      .default([]),
  })
  .strict();

export type RuleBundle = z.output<typeof bundleSchema>;

export interface ImportStepReport {
  label: string;
  step_type: string;
  status: "ok" | "migrated" | "warning" | "error";
  description: string;
}

export interface ImportReport {
  status: "ok" | "warning" | "error";
  rule_name: string;
  rule_id: number | null;
  steps: ImportStepReport[];
  warnings: string[];
  errors: string[];
  min_app_version_required: string;
}
