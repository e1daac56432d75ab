import { z } from "zod";
import { defineStep } from "../../_kit/define";

export const spec = defineStep({
  type: "scene_analysis",
  displayName: "Scene analysis",
  category: "perception",
  description: "Detects objects, describes the scene and checks hazard rules in the trigger's images.",
  version: 1,
  config: z
    .object({
      run_detect: z.boolean().default(true).describe("Run object detection"),
      run_describe: z.boolean().default(true).describe("Write a scene caption"),
      run_embed: z.boolean().default(false).describe("Compute an image embedding (adds latency)"),
      run_hazards: z.boolean().default(true).describe("Run the hazard rule engine on the detections"),
      max_images: z.number().int().min(1).default(1).describe("Images analysed per run"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "scene_detections", type: "list", description: "label, confidence, bbox [x1,y1,x2,y2], class_id" },
    { key: "scene_description", type: "string", description: "Caption of the scene" },
    { key: "scene_embedding", type: "list", description: "768-dim L2-normalised embedding; empty unless run_embed" },
    { key: "scene_hazards", type: "list", description: "name, severity, description, detection" },
    { key: "scene_detector_available", type: "boolean", description: "The service has its detector loaded" },
    { key: "scene_describer_available", type: "boolean", description: "The service has its describer loaded" },
    { key: "scene_embedder_available", type: "boolean", description: "The service has its embedder loaded" },
  ],
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-picture-o" },
});
