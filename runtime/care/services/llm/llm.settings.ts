/** The `llm` settings section: the language models steps name by id, and the voice companion's realtime model. */
import { z } from "zod";

const llmModel = z
  .object({
    id: z.string().min(1),
    name: z.string().optional(),
    api_type: z.enum(["openai", "ollama"]),
    base_url: z
      .string()
      .url()
      .refine((u) => !u.endsWith("/"), "base_url takes no trailing slash"),
    model: z.string().min(1),
    api_key: z.string().optional(),
    // `embedding`: the model turns text into vectors (OpenAI /v1/embeddings, Ollama /api/embed).
    capabilities: z.array(z.enum(["text", "vision", "translation", "embedding"])).min(1),
    max_tokens: z.number().int().positive().default(4096),
    timeout: z.number().positive().default(60),
    guided_decoding: z.boolean().default(false),
    max_retries: z.number().int().min(0).default(3),
  })
  .strict();

/**
 * A legacy per-role model provider (`llm.vision`, …): careflow has no per-role provider, so a
 * value is refused at start, naming what replaced it, rather than accepted and never read
 * (docs/decisions.md). `null`, as old files may carry, means not set.
 */
const retiredProvider = (role: string, step: string) =>
  z
    .null({
      error: `careflow does not read llm.${role}: add the model to llm.models and name its id in the step's model_id (${step} and llm_call steps take one)`,
    })
    .default(null);

/**
 * The voice companion's model (`llm.realtime`, the spec's legacy provider name): a server
 * speaking the OpenAI Realtime API over WebSocket, local or hosted. Configured when `url` is
 * set; other keys of the legacy provider (provider, chain, pool) are kept and not read.
 */
const realtimeProvider = z
  .object({
    url: z
      .string()
      .url()
      .refine((u) => /^(wss?|https?):/.test(u), "url is a ws://, wss://, http:// or https:// address of the Realtime API, e.g. ws://127.0.0.1:8765/v1/realtime")
      .nullable()
      .default(null),
    model: z.string().min(1).default("gpt-4o-realtime-preview"),
    voice: z.string().min(1).default("alloy"),
    // Sent as `Authorization: Bearer`; may come from CAREFLOW_REALTIME_API_KEY instead.
    api_key: z.string().nullable().default(null),
    /** The base instruction every conversation starts from; a step's voice_instruction adds to it. */
    instructions: z.string().nullable().default(null),
    transcription_model: z.string().min(1).default("whisper-1"),
    /** A conversation nobody has spoken in for this long ends. */
    idle_seconds: z.number().positive().default(30),
    /** No conversation lasts longer. */
    max_minutes: z.number().positive().default(10),
    connect_timeout_seconds: z.number().positive().default(5),
  })
  .loose()
  .nullable()
  .default(null);

export const llmSettings = z
  .object({
    models: z.array(llmModel).default([]),
    // The legacy per-role providers (spec "Versioning"): replaced by llm.models and model_id.
    vision: retiredProvider("vision", "vision_analysis"),
    logic: retiredProvider("logic", "logic_reasoning"),
    translation: retiredProvider("translation", "translation"),
    realtime: realtimeProvider,
  })
  .strict()
  .prefault({});
