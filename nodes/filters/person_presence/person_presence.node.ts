import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineFilter } from "../../_kit/define";

export const spec = defineFilter({
  type: "person_presence",
  displayName: "Person presence",
  description: "Lets the rule fire only when a person is home (optionally in a room), away, or unknown.",
  version: 1,
  requiredToRun: ["person_id"],
  config: z
    .object({
      person_id: householdRef("person", "The person to check (required)").default(""),
      status: z.enum(["home", "away", "unknown"]).default("home").describe("Status that lets the rule fire"),
      room_name: householdRef("room", "With status home: the person must be in this room (case-insensitive)").optional(),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "font-awesome/fa-user-circle" },
});
