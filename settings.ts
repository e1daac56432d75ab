/**
 * The settings schema and its defaults: the one place that names every setting.
 *
 * Keys mirror the spec's setting names as nested objects (`app.timezone`,
 * `image.refresh_window_minutes`, `llm.models`, ...). A settings file given by
 * `CAREFLOW_SETTINGS` is merged over these defaults and then validated here; an
 * unknown or ill-typed key stops the service with a message naming it.
 */
import { validate as cronValid } from "node-cron";
import { z } from "zod";
import { canonicalTag, LANGUAGE_TAG_HINT } from "./runtime/platform/i18n/language-tag";
import { appSettings } from "./runtime/platform/config/app.settings";
import { authSettings, DEVICE_TYPES, ROLE_NAMES, type RoleName } from "./runtime/platform/auth/auth.settings";
import { websocketSettings } from "./runtime/platform/ws/websocket.settings";
import { nodeRedSettings } from "./runtime/platform/nodered/node-red.settings";
import { clusterSettings } from "./runtime/platform/cluster/cluster.settings";
import { camerasSettings } from "./runtime/household/devices/cameras.settings";
import { mediaSettings, aggregatorSettings, storeUrlProblem } from "./runtime/household/media/media.settings";
import { ttsSettings } from "./runtime/household/speech/tts.settings";
import { personTrackingSettings, presenceSettings } from "./runtime/household/tracking/presence.settings";
import { recognitionSettings } from "./runtime/household/identity/recognition.settings";
import { hubSettings } from "./runtime/household/hub/hub.settings";
import { ctsSettings } from "./runtime/household/cts/cts.settings";

// Each section lives beside the code that reads it; what they exported here before is re-exported.
export { DEVICE_TYPES, ROLE_NAMES, type RoleName, storeUrlProblem };

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

/**
 * The fallback routes of a send whose every channel failed: the family's own first (who can act
 * on it), then the household's screens and speakers, which are used only when the level's
 * default channels include them (docs/decisions.md "Fallback channels").
 */
export const FALLBACK_ORDER = ["chat_app", "hub_notify", "webhook", "pwa_popup_text", "hub_speaker_tts", "tts", "announcement", "eink"] as const;

const level = z
  .object({
    channels: z.array(z.string()),
    escalation_minutes: z.number().positive().nullable().default(null),
    repeat_count: z.number().int().min(0).default(0),
  })
  .strict();

/** Days a table keeps its rows: a whole number, 0 for ever (docs/retention.md). */
const retentionDays = (days: number) => z.number().int("a whole number of days").min(0, "0 (kept for ever) or more days").max(36_500).default(days);

export const settingsSchema = z
  .object({
    app: appSettings,
    auth: authSettings,
    websocket: websocketSettings,
    node_red: nodeRedSettings,
    cameras: camerasSettings,
    media: mediaSettings,
    aggregator: aggregatorSettings,
    image: z
      .object({ refresh_window_minutes: z.number().min(0).default(60) })
      .strict()
      .prefault({}),
    pipeline: z
      .object({
        step_timeout_seconds: z.number().positive().default(60),
        execution_timeout_minutes: z.number().positive().default(5),
      })
      .strict()
      .prefault({}),
    llm: z
      .object({
        models: z.array(llmModel).default([]),
        // The legacy per-role providers (spec "Versioning"): replaced by llm.models and model_id.
        vision: retiredProvider("vision", "vision_analysis"),
        logic: retiredProvider("logic", "logic_reasoning"),
        translation: retiredProvider("translation", "translation"),
        realtime: realtimeProvider,
      })
      .strict()
      .prefault({}),
    notifications: z
      .object({
        webhook: z
          .object({
            url: z.string().url().nullable().default(null),
            timeout_seconds: z.number().positive().default(10),
            headers: z.record(z.string(), z.string()).prefault({}),
          })
          .strict()
          .prefault({}),
        levels: z.object({ emergency: level, warning: level, info: level, reminder: level }).partial().strict().prefault({}),
        chat_app: z
          .object({
            targets: z
              .array(
                z
                  .object({
                    name: z.string(),
                    chat_id: z.union([z.string(), z.number()]),
                    alert_levels: z.array(z.string()).default([]),
                    // The language the bot speaks in this chat (BCP 47); not set: app.language.
                    language: z
                      .string()
                      .refine((t) => canonicalTag(t) !== null, LANGUAGE_TAG_HINT)
                      .transform((t) => canonicalTag(t) ?? t)
                      .optional(),
                  })
                  .strict(),
              )
              .default([]),
            max_image_side: z.number().int().positive().default(1920),
            // The chat service's Bot API (Telegram's protocol): the client calls
            // `<api_base_url>/bot<token>/<method>`; a self-hosted Bot API server or a test's fake is another URL.
            api_base_url: z.string().url().default("https://api.telegram.org"),
            // The bot's token is a secret: CAREFLOW_CHAT_TOKEN keeps it out of the settings file.
            token: z.string().min(1).nullable().default(null),
            // How updates (button presses, replies, commands) arrive: long polling needs no public endpoint.
            mode: z.enum(["polling", "webhook"]).default("polling"),
            // Webhook mode: the secret the chat service sends in X-Telegram-Bot-Api-Secret-Token.
            webhook_secret: z.string().min(16).nullable().default(null),
            poll_timeout_seconds: z.number().int().min(0).max(50).default(25),
            // Commands a chat_app rule may fire on (without the slash).
            commands: z.array(z.string().regex(/^[a-z0-9_]{1,32}$/)).default(["status", "where", "checkin"]),
            // The escalation ladder: when set, an alert first goes to these targets (by name) only,
            // and to every target from the first re-send at least `everyone_after_minutes` later.
            first_targets: z.array(z.string()).default([]),
            everyone_after_minutes: z.number().min(0).default(5),
            // Longest a 429's retry_after is waited for before the send is reported failed.
            max_retry_after_seconds: z.number().min(0).default(30),
          })
          .strict()
          .prefault({}),
        // When every channel of a send failed: the routes tried next, in order (docs/notifications.md).
        fallback: z
          .object({
            order: z.array(z.enum([...FALLBACK_ORDER, "pwa_realtime_ai"])).default([...FALLBACK_ORDER]),
            // The hub's notify service that reaches the family's phones (notify.mobile_app_anna); null: no hub notify.
            hub_notify_service: z
              .string()
              .regex(/^notify\.[a-z0-9_]+$/, "a notify service, e.g. notify.family")
              .nullable()
              .default(null),
          })
          .strict()
          .prefault({}),
        eink: z
          .object({
            default_targets: z.array(z.string()).default([]),
            default_template: z.string().nullable().default(null),
            default_expiry_minutes: z.number().positive().default(30),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    // careflow watching itself (docs/health.md): the family's daily message, at this local time
    // (`app.timezone`), is its sign of life; its absence is the family's dead-man's switch.
    health: z
      .object({
        daily_report_at: z
          .string()
          .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "a local time as HH:MM, from 00:00 to 23:59")
          .default("09:00"),
      })
      .strict()
      .prefault({}),
    tts: ttsSettings,
    person_tracking: personTrackingSettings,
    presence: presenceSettings,
    mcp: z
      .object({
        tools: z.array(z.string()).nullable().default(null),
        voice_tools: z
          .array(z.string())
          .default([
            "get_rooms",
            "get_room_occupancy",
            "get_person_locations",
            "get_alerts",
            "get_weather",
            "get_local_datetime",
            "get_person_activities",
            "get_enrolled_persons",
            "query_knowledge_base",
          ]),
        // Browser origins allowed to call /mcp (`http://host:port`); a request without an Origin
        // header (an agent, the SDK in Node) is not a browser and passes. The service's own origin
        // (`app.public_url`) is always allowed. See docs/mcp.md (DNS rebinding).
        allowed_origins: z.array(z.string().url()).default([]),
        // Host names /mcp answers to besides IP addresses, `localhost` and `app.public_url`'s host
        // (a name like `careflow.local` the household uses). Anything else is refused with 403.
        allowed_hosts: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .prefault({}),
    recognition: recognitionSettings,
    hub: hubSettings,
    // The knowledge repository's limits and the embedding model it must match.
    knowledge: z
      .object({
        chunk_size_tokens: z.number().int().positive().default(400),
        chunk_overlap_tokens: z.number().int().min(0).default(60),
        retrieval_top_k: z.number().int().positive().default(8),
        min_similarity: z.number().min(0).max(1).default(0.55),
        max_upload_bytes: z.number().int().positive().default(15728640),
        max_pixels: z.number().int().positive().default(40000000),
        // `llm.models` ids: who writes an answer from the retrieved passages (none: the best
        // passage is the answer), who drafts cards and quizzes (none: suggest answers 409), and
        // who embeds chunks (none: lexical search only).
        answer_model: z.string().min(1).nullable().default(null),
        authoring_model: z.string().min(1).nullable().default(null),
        embedding_model: z.string().min(1).nullable().default(null),
        // Layouts added to the shipped ones, or replacing one by id; checked at start
        // (runtime/care/knowledge/layouts, docs/knowledge-cards.md).
        layouts: z.array(z.record(z.string(), z.unknown())).default([]),
        // The default voice instructions per delivery type (empty: the shipped ones).
        voice_defaults: z
          .object({
            interactive_prompt_default: z.string().optional(),
            info_card_default: z.string().optional(),
            quiz_default: z.string().optional(),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    embedding: z
      .object({
        dim: z.number().int().positive().default(768),
        max_seq_len: z.number().int().positive().default(2048),
        batch_size: z.number().int().positive().default(16),
      })
      .strict()
      .prefault({}),
    // The perception services the scene_analysis, object_trend_analysis and
    // semantic_memory_query steps call (ports as the original project's examples).
    scene_analysis: externalService(8100, 30),
    semantic_memory: externalService(8300, 10),
    // The input journal (care/journal): every input a rule could see, kept for rehearsal.
    journal: z
      .object({
        enabled: z.boolean().default(true),
        retention_days: z.number().int().positive().default(14),
      })
      .strict()
      .prefault({}),
    // How long each growing table keeps its rows, in days (docs/retention.md has the table and
    // why each default). 0 keeps them for ever; a key left out takes its default. Pruned hourly
    // by one instance, never a run that has not ended, an alert or a dementia signal not yet
    // acknowledged, nor what a daily report still to be stored reads.
    retention: z
      .object({
        runs_days: retentionDays(30),
        prompts_days: retentionDays(30),
        activities_days: retentionDays(365),
        alerts_days: retentionDays(365),
        location_history_days: retentionDays(180),
        dementia_signals_days: retentionDays(365),
        sightings_days: retentionDays(90),
        voice_turns_days: retentionDays(30),
        mcp_calls_days: retentionDays(90),
        knowledge_queries_days: retentionDays(90),
        knowledge_deliveries_days: retentionDays(365),
        visitors_days: retentionDays(180),
        camera_batches_days: retentionDays(7),
        daily_reports_days: retentionDays(730),
        audit_log_days: retentionDays(730),
      })
      .strict()
      .prefault({}),
    // Backups (docs/backups.md): one file per backup in `dir` (null: `backups/` in the data dir),
    // made at `schedule` (cron in app.timezone; null: only by hand), the newest of each of the
    // last `keep_daily` days and of each of the last `keep_weekly` weeks kept.
    backup: z
      .object({
        schedule: z
          .string()
          .refine((c) => cronValid(c), "a cron expression (minute hour day month weekday), e.g. '30 3 * * *'")
          .nullable()
          .default("30 3 * * *"),
        dir: z.string().min(1).nullable().default(null),
        keep_daily: z.number().int("a whole number").min(0).max(366).default(7),
        keep_weekly: z.number().int("a whole number").min(0).max(520).default(4),
        // A start that upgrades the store backs it up first (docs/upgrades.md); the last
        // `keep_before_upgrade` such backups are kept besides the daily and weekly ones.
        before_upgrade: z.boolean().default(true),
        keep_before_upgrade: z.number().int("a whole number").min(1).max(100).default(3),
      })
      .strict()
      .prefault({})
      .refine((b) => b.keep_daily + b.keep_weekly > 0, {
        message: "keep_daily and keep_weekly are both 0: every backup would be deleted as soon as it is made",
        path: ["keep_daily"],
      }),
    cts: ctsSettings,
    cluster: clusterSettings,
  })
  .strict()
  .superRefine((s, ctx) => {
    // embedding.max_seq_len is the most the embedding model reads: a passage longer than that
    // would be cut by the model without a word, so the chunk size must fit in it.
    if (s.knowledge.embedding_model !== null && s.knowledge.chunk_size_tokens > s.embedding.max_seq_len)
      ctx.addIssue({
        code: "custom",
        path: ["knowledge", "chunk_size_tokens"],
        message: `${s.knowledge.chunk_size_tokens} is more than embedding.max_seq_len (${s.embedding.max_seq_len}), the most the embedding model reads: lower it or raise embedding.max_seq_len`,
      });
  });

export type Settings = z.infer<typeof settingsSchema>;
/** The raw, not yet validated shape a settings file may hold. */
export type SettingsInput = z.input<typeof settingsSchema>;
export type ApiKeyEntry = Settings["auth"]["api_keys"][number];
export type DeviceKeyEntry = Settings["auth"]["device_keys"][number];
export type LlmModelEntry = Settings["llm"]["models"][number];
export type PresenceProviderConfig = Settings["presence"]["providers"][number];
export type PresenceProviderName = PresenceProviderConfig["name"];

export const ROLES: readonly RoleName[] = ROLE_NAMES;

/** Default channel sets and escalation of each alert level (the spec's table). */
export const DEFAULT_LEVELS = {
  emergency: { channels: ["pwa_popup_text", "chat_app", "eink", "hub_speaker_tts"], escalation_minutes: 5, repeat_count: 3 },
  warning: { channels: ["pwa_popup_text", "chat_app", "eink", "pwa_realtime_ai"], escalation_minutes: 10, repeat_count: 3 },
  info: { channels: ["pwa_popup_text"], escalation_minutes: null, repeat_count: 0 },
  reminder: { channels: ["pwa_popup_text", "hub_speaker_tts", "eink"], escalation_minutes: null, repeat_count: 0 },
} as const;
export type CtsSettings = Settings["cts"];
export type MediaSettings = Settings["media"];

export type ClusterSettings = Settings["cluster"];
export type RetentionSettings = Settings["retention"];
export type BackupSettings = Settings["backup"];
