import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineFilter } from "../../_kit/define";

/** Semantic transition values of the camera topology's movement maps. */
export const TRANSITION_SEMANTICS = ["entering", "exiting", "approaching_exit", "entering_depth", "stationary"] as const;

export const spec = defineFilter({
  type: "room_transition",
  displayName: "Room transition",
  description: "Lets the rule fire only when a person recently moved between rooms in a given way.",
  version: 1,
  requiredToRun: ["person_id"],
  config: z
    .object({
      person_id: householdRef("person", "The person to check (required)").default(""),
      semantic: z.enum(TRANSITION_SEMANTICS).optional().describe("Transition type to match; empty = any"),
      to_room_name: householdRef("room", "Room moved into (case-insensitive); empty = any").optional(),
      from_room_name: householdRef("room", "Room left (case-insensitive); empty = any").optional(),
      within_minutes: z.number().int().positive().default(5).describe("How recent the transition must be, in minutes"),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "font-awesome/fa-exchange" },
});
