import { z } from "zod";
import { defineStep } from "../../_kit/define";

export const spec = defineStep({
  type: "semantic_memory_query",
  displayName: "Memory query",
  category: "perception",
  description: "Reads what semantic memory recently saw in a room: objects, hazards and observations.",
  version: 1,
  config: z
    .object({
      room_id: z.string().optional().describe("Room to read; overrides use_trigger_room"),
      use_trigger_room: z.boolean().default(true).describe("Read the trigger's room when room_id is empty"),
      objects_limit: z.number().int().min(0).default(10).describe("Most recent objects returned"),
      hazards_limit: z.number().int().min(0).default(5).describe("Most recent hazards returned"),
      observations_limit: z.number().int().min(0).default(20).describe("Most recent observations returned"),
      within_minutes: z.number().positive().default(60).describe("How far back to look, in minutes"),
      min_confidence: z.number().min(0).max(1).default(0).describe("Lowest confidence (0–1) of what is returned"),
      output_key: z.string().min(1).default("memory_context").describe("pipeline_data key the result object is written to"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "memory_context.recent_objects", type: "list", description: "Objects seen recently (prefix = output_key)" },
    { key: "memory_context.recent_hazards", type: "list", description: "Hazards seen recently (prefix = output_key)" },
    { key: "memory_context.observations", type: "list", description: "Scene observations (prefix = output_key)" },
    { key: "memory_context.observations_count", type: "integer", description: "Number of observations (prefix = output_key)" },
    {
      key: "memory_context.summary",
      type: "string",
      description: "Text summary; `No memory context available.` when the service is unreachable (prefix = output_key)",
    },
  ],
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-database" },
});
