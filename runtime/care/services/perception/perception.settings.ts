/** The `scene_analysis` and `semantic_memory` settings sections: the household's perception services. */
import { z } from "zod";

/** An external service the household may run (scene analysis, semantic memory): off unless enabled. */
const externalService = (port: number, timeoutSeconds: number) =>
  z
    .object({
      enabled: z.boolean().default(false),
      url: z
        .string()
        .url()
        .refine((u) => !u.endsWith("/"), "url takes no trailing slash")
        .default(`http://127.0.0.1:${port}`),
      timeout_seconds: z.number().positive().default(timeoutSeconds),
    })
    .strict()
    .prefault({});

// The perception services the scene_analysis, object_trend_analysis and
// semantic_memory_query steps call (ports as the original project's examples).
export const sceneAnalysisSettings = externalService(8100, 30);

export const semanticMemorySettings = externalService(8300, 10);
