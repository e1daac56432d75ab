import { z } from "zod";
import { defineStep } from "../../_kit/define";

export const spec = defineStep({
  type: "wait",
  displayName: "Wait",
  category: "flow",
  description: "Pauses the run for a number of minutes; the wait survives restarts.",
  version: 2,
  // v1 configs (the original project) wrote `minutes`; v2 is the spec's `duration_minutes`.
  migrations: {
    1: ({ minutes, ...rest }) => ({ ...rest, ...(minutes !== undefined && rest.duration_minutes === undefined ? { duration_minutes: minutes } : {}) }),
  },
  config: z
    .object({
      // No schema default: a default here would hide an explicit `minutes` alias.
      duration_minutes: z.number().min(0).max(10080).optional().describe("How long to wait, in minutes (5 when neither this nor minutes is set)"),
      minutes: z.number().min(0).max(10080).optional().describe("Alias of duration_minutes, kept for older rules"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [{ key: "wait_started", type: "string", description: "When the wait began (ISO-8601 UTC)" }],
  palette: { color: "#C0DEED", icon: "timer.svg" },
});
