import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineStep } from "../../_kit/define";
import { DEMENTIA_SIGNAL_KINDS, SIGNAL_SEVERITIES } from "../../filters/dementia_signal/dementia_signal.node";

export const spec = defineStep({
  type: "presence_query",
  displayName: "Presence query",
  category: "perception",
  description: "Asks the fused presence service where a person is, with recent dementia signals.",
  version: 1,
  config: z
    .object({
      person_id: householdRef("person", "The person; empty = resolved from pipeline data (e.g. person_detections)").default(""),
      signal_kind: z.enum(DEMENTIA_SIGNAL_KINDS).optional().describe("Only fetch signals of this kind; empty = every kind"),
      signal_severity_min: z.enum(SIGNAL_SEVERITIES).default("info").describe("Lowest severity of the signals fetched"),
      signal_window_minutes: z.number().positive().default(30).describe("How far back signals are fetched, in minutes"),
      output_key: z.string().min(1).default("presence").describe("Prefix of the keys written to pipeline_data"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    {
      key: "presence_status",
      type: "string",
      description: "present_room, present_home, asleep, away, stale or unknown (prefix = output_key)",
    },
    { key: "presence_room_name", type: "string | null", description: "Room the person is in (prefix = output_key)" },
    { key: "presence_room_id", type: "string | null", description: "Its id (prefix = output_key)" },
    { key: "presence_dwell_minutes", type: "number", description: "Minutes in that room (prefix = output_key)" },
    { key: "presence_confidence", type: "number", description: "Confidence 0–1 of the fused answer (prefix = output_key)" },
    { key: "presence_signals", type: "list", description: "Recent dementia signals matching the filter (prefix = output_key)" },
    { key: "presence_providers", type: "list", description: "Providers that answered, highest priority first (prefix = output_key)" },
    { key: "presence_timestamp", type: "string", description: "When the location was observed, ISO-8601 (prefix = output_key)" },
    { key: "presence_at_home", type: "boolean", description: "Status is present_room, present_home or asleep (fixed name)" },
    { key: "presence_asleep", type: "boolean", description: "Status is asleep (fixed name)" },
    { key: "presence_away", type: "boolean", description: "Status is away (fixed name)" },
  ],
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-map-marker" },
});
