/** The `cameras` settings section: each camera sensor's rotation and label filter, by sensor id. */
import { z } from "zod";

const camera = z
  .object({
    rotate: z.union([z.literal(90), z.literal(180), z.literal(270)]).optional(),
    label_filter: z
      .object({
        labels: z.array(z.string()).default([]),
        mode: z.enum(["any", "all"]).default("any"),
      })
      .strict()
      .optional(),
  })
  .strict();

export const camerasSettings = z.record(z.string(), camera).prefault({});
