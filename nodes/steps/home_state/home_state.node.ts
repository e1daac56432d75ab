import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineStep } from "../../_kit/define";

export const spec = defineStep({
  type: "home_state",
  displayName: "Home state",
  category: "perception",
  description: "Tells whether a person is at home, asleep, away or of unknown state, as four booleans.",
  version: 1,
  config: z
    .object({
      person_id: householdRef("person", "The person; empty = resolved from pipeline data").default(""),
      output_key: z.string().min(1).default("home").describe("Prefix of the keys written to pipeline_data"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "home_at_home", type: "boolean", description: "Present in a room, present at home or asleep (prefix = output_key)" },
    { key: "home_asleep", type: "boolean", description: "Asleep (prefix = output_key)" },
    { key: "home_away", type: "boolean", description: "Away (prefix = output_key)" },
    { key: "home_state_unknown", type: "boolean", description: "Presence unknown or stale (prefix = output_key)" },
  ],
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-bed" },
});
