/**
 * The settings schema: the root that composes every section. Each section (its keys, defaults
 * and messages) lives in a `*.settings.ts` file beside the code that reads it; none imports
 * this file. Only what spans sections (the chunk size the embedding model must take) is here.
 *
 * Keys mirror the spec's setting names as nested objects (`app.timezone`,
 * `image.refresh_window_minutes`, `llm.models`, ...). A settings file given by
 * `CAREFLOW_SETTINGS` is merged over these defaults and then validated here; an
 * unknown or ill-typed key stops the service with a message naming it.
 */
import { z } from "zod";
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
import { imageSettings } from "./runtime/care/services/eink/image.settings";
import { pipelineSettings } from "./runtime/care/core/pipeline/engine/pipeline.settings";
import { llmSettings } from "./runtime/care/services/llm/llm.settings";
import { notificationsSettings, DEFAULT_LEVELS, FALLBACK_ORDER } from "./runtime/care/services/notify/notify.settings";
import { healthSettings } from "./runtime/care/services/health-report/health.settings";
import { mcpSettings } from "./runtime/care/surfaces/mcp/mcp.settings";
import { knowledgeSettings, embeddingSettings } from "./runtime/care/services/knowledge/knowledge.settings";
import { sceneAnalysisSettings, semanticMemorySettings } from "./runtime/care/services/perception/perception.settings";
import { journalSettings } from "./runtime/care/core/journal/journal.settings";
import { retentionSettings } from "./runtime/app/retention.settings";
import { backupSettings } from "./runtime/app/backup/backup.settings";

// Each section lives beside the code that reads it; what they exported here before is re-exported.
export { DEFAULT_LEVELS, DEVICE_TYPES, FALLBACK_ORDER, ROLE_NAMES, type RoleName, storeUrlProblem };

export const settingsSchema = z
  .object({
    app: appSettings,
    auth: authSettings,
    websocket: websocketSettings,
    node_red: nodeRedSettings,
    cameras: camerasSettings,
    media: mediaSettings,
    aggregator: aggregatorSettings,
    image: imageSettings,
    pipeline: pipelineSettings,
    llm: llmSettings,
    notifications: notificationsSettings,
    health: healthSettings,
    tts: ttsSettings,
    person_tracking: personTrackingSettings,
    presence: presenceSettings,
    mcp: mcpSettings,
    recognition: recognitionSettings,
    hub: hubSettings,
    knowledge: knowledgeSettings,
    embedding: embeddingSettings,
    scene_analysis: sceneAnalysisSettings,
    semantic_memory: semanticMemorySettings,
    journal: journalSettings,
    retention: retentionSettings,
    backup: backupSettings,
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
export type CtsSettings = Settings["cts"];
export type MediaSettings = Settings["media"];
export type ClusterSettings = Settings["cluster"];
export type RetentionSettings = Settings["retention"];
export type BackupSettings = Settings["backup"];
