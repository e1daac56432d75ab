import { z } from "zod";
import { defineStep } from "../../_kit/define";

/** A hub domain or service name (`light`, `turn_on`); empty until set. */
const hubName = z.string().regex(/^([a-z0-9_]+)?$/, "use lowercase letters, digits and underscores");

export const spec = defineStep({
  type: "hub_action",
  displayName: "Hub action",
  category: "action",
  description: "Calls a home automation hub service, such as turning on a light.",
  version: 1,
  requiredToRun: ["domain", "service"],
  config: z
    .object({
      domain: hubName.default("").describe("Service domain, e.g. light (required)"),
      service: hubName.default("").describe("Service, e.g. turn_on (required)"),
      entity_id: z.string().optional().describe("Target entity, e.g. light.bedroom"),
      data: z.record(z.string(), z.unknown()).default({}).describe('Extra service data, e.g. {"brightness_pct": 30}'),
      trigger_cooloff: z.boolean().default(true).describe("Mark the run cool-off-worthy"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "hub_action", type: "object", description: "domain, service, entity_id and success of the call" },
    { key: "_cooloff_triggered", type: "boolean", description: "Set when trigger_cooloff is on" },
  ],
  palette: { color: "#FDD0A2", icon: "font-awesome/fa-lightbulb-o" },
});
