/**
 * A person's alert profile (`persons.cts_alert_config`) decides which of their dementia
 * signals may alert anyone: `enabled_kinds` at `min_severity` or above. No profile, no
 * person row, or an unreadable profile means every kind at `info`, as the spec says for null.
 */
import type { Knex } from "knex";
import { ctsAlertConfigSchema, type CtsAlertConfig } from "../persons/alert-profiles";
import { alertConfigRows } from "../persons/persons.service";
import { fromJsonText } from "../../platform/db/json-column";
import { atLeast } from "./match";
import { SIGNAL_SEVERITY_SCALE } from "./signals.store";

export async function loadAlertProfiles(db: Knex, personIds: readonly string[]): Promise<Map<string, CtsAlertConfig>> {
  const profiles = new Map<string, CtsAlertConfig>();
  if (personIds.length === 0) return profiles;
  const rows = await alertConfigRows(db, personIds);
  for (const row of rows) {
    const parsed = ctsAlertConfigSchema.safeParse(fromJsonText<unknown>(row.cts_alert_config, null));
    profiles.set(row.person_id, parsed.success ? parsed.data : null);
  }
  return profiles;
}

export function profileAllows(profile: CtsAlertConfig | undefined, kind: string, severity: string): boolean {
  if (!profile) return true;
  return (profile.enabled_kinds as readonly string[]).includes(kind) && atLeast(SIGNAL_SEVERITY_SCALE, severity, profile.min_severity);
}
