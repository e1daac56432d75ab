import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineFilter } from "../../_kit/define";

export const spec = defineFilter({
  type: "room",
  displayName: "Room",
  description: "Lets the rule fire only for events from the listed rooms.",
  version: 1,
  config: z
    .object({
      room_names: z
        .array(householdRef("room", "A room of the household").min(1))
        .default([])
        .describe("Rooms whose events fire the rule (case-insensitive); an empty list lets nothing through"),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "font-awesome/fa-home" },
});
