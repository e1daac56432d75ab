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

export const spec = defineFilter({
  type: "dementia_signal",
  displayName: "Dementia signal",
  description: "Lets the rule fire only for dementia-related signals of chosen kinds, people and severity.",
  version: 2,
  // v1 configs may use the spec's aliases `kind` (one kind) and `min_severity`; v2 keeps only
  // `kinds` and `severity_min`.
  migrations: {
    1: ({ kind, min_severity, ...rest }) => {
      const out: Record<string, unknown> = { ...rest };
      if (kind !== undefined && kind !== null && kind !== "") {
        const extra: unknown[] = Array.isArray(kind) ? kind : [kind];
        const kinds: unknown[] = Array.isArray(rest.kinds) ? rest.kinds : [];
        out.kinds = [...kinds, ...extra.filter((k) => !kinds.includes(k))];
      }
      if (min_severity !== undefined && rest.severity_min === undefined) out.severity_min = min_severity;
      return out;
    },
  },
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
