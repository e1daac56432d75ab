import { z } from "zod";
import { defineFilter } from "../../_kit/define";

export const spec = defineFilter({
  type: "day_of_week",
  displayName: "Day of week",
  description: "Lets the rule fire only on chosen local weekdays (0 = Monday).",
  version: 1,
  config: z
    .object({
      days: z
        .array(z.number().int().min(0).max(6))
        .default([0, 1, 2, 3, 4, 5, 6])
        .describe("Weekdays on which the rule fires, 0 = Monday … 6 = Sunday (local time)"),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "font-awesome/fa-calendar" },
});
