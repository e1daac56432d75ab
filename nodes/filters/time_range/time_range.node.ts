import { z } from "zod";
import { defineFilter } from "../../_kit/define";

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "use HH:MM, 24-hour");

export const spec = defineFilter({
  type: "time_range",
  displayName: "Time range",
  description: "Lets the rule fire only between two local times; a start after the end spans midnight.",
  version: 1,
  config: z
    .object({
      start_time: hhmm.default("08:00").describe("From (local time, HH:MM, inclusive)"),
      end_time: hhmm.default("22:00").describe("To (local time, HH:MM, inclusive)"),
    })
    .strict(),
  palette: { color: "#D8BFD8", icon: "timer.svg" },
});
