/** The REST body of a rule, and checks that need the store (sensors exist, names are free). */
import { z } from "zod";
import type { CareContext } from "../context";
import { ConflictError, ValidationError } from "../../../platform/core/errors";
import { sameName } from "../../../platform/core/name-key";
import { sensorExists, sensorIds } from "../../../household/sensors/sensors.service";
import { suggest, didYouMean } from "../language/suggest";
import { chatCommand, ctsWindowConfigSchema, maxDailyTriggers, systemHealthConfigSchema, TRIGGER_TYPES } from "../../../../nodes/triggers/rule/rule.node";

const triggerFields = {
  trigger_type: z.enum(TRIGGER_TYPES),
  primary_sensor_id: z.string().min(1).nullable(),
  schedule_cron: z.string().nullable(),
  cool_off_minutes: z.number().int().min(0),
  max_daily_triggers: maxDailyTriggers,
  occupancy_config: z.object({ min_minutes: z.number().positive() }).strict().nullable(),
  chat_command: chatCommand.nullable(),
  cts_window_config: ctsWindowConfigSchema.nullable(),
  system_health_config: systemHealthConfigSchema.nullable(),
  max_concurrent_executions: z.number().int().min(1).max(20),
  execution_timeout_minutes: z.number().positive().max(1440),
};

export const TRIGGER_KEYS = Object.keys(triggerFields) as Array<keyof typeof triggerFields>;

const ruleFields = {
  name: z.string().trim().min(1, "must not be empty").max(200),
  description: z.string().max(4000),
  enabled: z.boolean(),
  ...triggerFields,
  // Accepted so a GET result can be sent back; the secret itself is only set by generate-secret.
  webhook_config: z.unknown(),
};

export const ruleUpdateSchema = z.object(ruleFields).partial().strict();
export const ruleCreateSchema = ruleUpdateSchema.required({ name: true, trigger_type: true });

export type RuleInput = z.infer<typeof ruleUpdateSchema>;

export async function assertSensorExists(ctx: CareContext, sensorId: string | null | undefined, field = "primary_sensor_id"): Promise<void> {
  if (!sensorId) return;
  if (await sensorExists(ctx, sensorId)) return;
  const hint = suggest(sensorId, await sensorIds(ctx));
  throw new ValidationError(`${field}: sensor '${sensorId}' does not exist${didYouMean(hint)}`);
}

export function assertNameFree(names: ReadonlyArray<{ id: number; name: string }>, name: string, exceptId?: number): void {
  const other = names.find((r) => sameName(r.name, name) && r.id !== exceptId);
  if (other) throw new ConflictError(`A rule named '${other.name}' already exists (id ${other.id})`);
}
