import { z } from "zod";
import { householdRef } from "../../_kit/fields";
import { defineStep } from "../../_kit/define";

export const spec = defineStep({
  type: "camera_media_poll",
  displayName: "Camera images",
  category: "perception",
  description: "Collects recent camera images from the media cache as signed URLs, without waiting.",
  version: 1,
  config: z
    .object({
      sensor_ids: z.array(householdRef("sensor", "A camera")).default([]).describe("Cameras to read; empty = all cameras (subject to room_names)"),
      room_names: z.array(householdRef("room", "A room")).default([]).describe("Rooms whose cameras are read, combined with sensor_ids"),
      since_minutes: z.number().positive().default(5).describe("Only images from the last N minutes (never older than the cache keeps)"),
      images_per_sensor: z.number().int().min(1).default(3).describe("Images taken from each camera"),
      sensor_frame_limits: z
        .record(z.string(), z.number().int().min(0))
        .default({})
        .describe("Per-camera overrides of images_per_sensor: sensor_id to a count"),
      max_images: z.number().int().min(1).default(10).describe("Hard cap on images returned"),
      chronological: z.boolean().default(true).describe("Oldest first per camera; off = newest first"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "images", type: "list", description: "Signed URLs of the images" },
    { key: "count", type: "integer", description: "Number of images" },
    { key: "sensor_ids", type: "list", description: "Cameras the images came from" },
    { key: "room_names", type: "list", description: "Their rooms" },
    { key: "since_minutes", type: "number", description: "The window used" },
    { key: "polled_at", type: "string", description: "When the cache was read (ISO-8601 UTC)" },
  ],
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-camera" },
});
