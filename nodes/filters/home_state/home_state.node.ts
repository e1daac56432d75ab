import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineFilter } from "../../_kit/define";

export const HOME_STATES = ["at_home", "asleep", "away", "state_unknown"] as const;

export const spec = defineFilter({
  type: "home_state",
  displayName: "Home state",
  description: "Lets the rule fire only when a person is at home, asleep, away, or of unknown state.",
  version: 1,
  requiredToRun: ["person_id"],
  config: z
    .object({
      person_id: householdRef("person", "The person to check (required)").default(""),
      state: z.enum(HOME_STATES).default("at_home").describe("State that lets the rule fire"),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "font-awesome/fa-bed" },
});
