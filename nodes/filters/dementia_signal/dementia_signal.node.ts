import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineFilter } from "../../_kit/define";

/** One vocabulary of kinds, shared with persons' alert profiles (`runtime/persons/alert-profiles.ts`). */
export const DEMENTIA_SIGNAL_KINDS = [
  "pacing",
  "room_revisit_rate",
  "bathroom_dwell_anomaly",
  "sundowning_index",
  "nighttime_movement",
  "stillness_anomaly",
  "absence",
] as const;
/** Lowest first, as filters and presence_query rank them. */
export const SIGNAL_SEVERITIES = ["info", "warning", "emergency"] as const;

/**
 * The spec's other spellings, `kind` (one kind or a list) and `min_severity`, as `kinds` and
 * `severity_min`: accepted at every gate (REST, MCP, the editor, import), and the migration of v1
 * configs, which could hold them.
 */
function ownSpellings({ kind, min_severity, ...rest }: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...rest };
  if (kind !== undefined && kind !== null && kind !== "") {
    const extra: unknown[] = Array.isArray(kind) ? kind : [kind];
    const kinds: unknown[] = Array.isArray(rest.kinds) ? rest.kinds : [];
    out.kinds = [...kinds, ...extra.filter((k) => !kinds.includes(k))];
  }
  if (min_severity !== undefined && rest.severity_min === undefined) out.severity_min = min_severity;
  return out;
}

export const spec = defineFilter({
  type: "dementia_signal",
  displayName: "Dementia signal",
  description: "Lets the rule fire only for dementia-related signals of chosen kinds, people and severity.",
  version: 2,
  // v2 keeps only `kinds` and `severity_min`; the spec's spellings are taken at every version.
  migrations: { 1: ownSpellings },
  aliases: ownSpellings,
  config: z
    .object({
      kinds: z.array(z.enum(DEMENTIA_SIGNAL_KINDS)).default([]).describe("Signal kinds that fire the rule; empty = every kind"),
      person_ids: z.array(householdRef("person", "A person of the household")).default([]).describe("People whose signals count; empty = everyone"),
      severity_min: z.enum(SIGNAL_SEVERITIES).default("warning").describe("Lowest severity that fires the rule"),
      cooldown_minutes: z.number().min(0).default(30).describe("Hold the rule while a matching signal was acknowledged within this many minutes; 0 = off"),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "font-awesome/fa-heartbeat" },
});
