import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineFilter } from "../../_kit/define";

export const spec = defineFilter({
  type: "person_activity",
  displayName: "Person activity",
  description: "Lets the rule fire only when a person recorded an activity recently.",
  version: 1,
  requiredToRun: ["person_id", "activity_type"],
  config: z
    .object({
      person_id: householdRef("person", "The person to check (required)").default(""),
      activity_type: z.string().default("").describe("Activity to look for, e.g. eating or medication (required)"),
      within_minutes: z.number().positive().default(30).describe("How recent the activity must be, in minutes"),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "font-awesome/fa-check-square-o" },
});
