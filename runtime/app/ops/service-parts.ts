/**
 * The model servers of `llm.models` (one part per distinct base_url), the speech service and an S3 media store as
 * parts (issue 44 §1): what the last real call said, and a cheap check at most every 5 minutes
 * (platform/health/endpoint-part.ts). No model configured: no model part. The speech service
 * joins at its first real call: `tts.url` has a default, so a household that never speaks
 * through it would otherwise show a failing part it does not have.
 */
import type { AppContext } from "../context";
import { checkUrl, endpointPart, type EndpointPart } from "../../platform/health/endpoint-part";
import type { PartsBoard } from "../../platform/health/parts-board";
import { onServiceCall } from "../../platform/health/service-calls";
import type { LlmModelEntry } from "../../../settings";
import { s3Location } from "../../household/media/s3-client";
import { s3Problem } from "../../household/media/s3-objects";

export const modelPartId = (baseUrl: string): string => `model:${baseUrl}`;
export const TTS_PART_ID = "tts";
export const MEDIA_STORE_PART_ID = "media_store";

/** "Language model (qwen, llava at 192.168.1.20:8000)": what a person recognises. */
function modelPartName(entries: LlmModelEntry[]): string {
  const names = [...new Set(entries.map((e) => e.name ?? e.id))].join(", ");
  return `Language model (${names} at ${new URL(entries[0].base_url).host})`;
}

function modelCheck(entry: LlmModelEntry): (signal: AbortSignal) => Promise<string | null> {
  // The listing route of each api type: answers without loading a model.
  const url = entry.api_type === "ollama" ? `${entry.base_url}/api/tags` : `${entry.base_url}/models`;
  const headers: Record<string, string> = entry.api_key ? { authorization: `Bearer ${entry.api_key}` } : {};
  return (signal) => checkUrl(url, signal, headers);
}

/** Registers the parts and listens to the real calls; returns the stop. */
export function addServiceParts(ctx: AppContext, board: PartsBoard): () => void {
  const byUrl = new Map<string, LlmModelEntry[]>();
  for (const m of ctx.settings.llm.models) byUrl.set(m.base_url, [...(byUrl.get(m.base_url) ?? []), m]);
  const models = new Map<string, EndpointPart>();
  for (const [url, entries] of byUrl) {
    models.set(url, endpointPart(board, ctx.clock, { id: modelPartId(url), kind: "model", name: modelPartName(entries), check: modelCheck(entries[0]) }));
  }
  const ttsUrl = ctx.settings.tts.url;
  let tts: EndpointPart | null = null;
  const media = mediaStorePart(ctx, board);
  return onServiceCall((call) => {
    if (call.service === "model") return models.get(call.url)?.called(call.up, call.detail);
    if (call.service === "media") return media && call.url === media.where ? media.part.called(call.up, call.detail) : undefined;
    if (call.url !== ttsUrl) return;
    tts ??= endpointPart(board, ctx.clock, {
      id: TTS_PART_ID,
      kind: "tts",
      name: `Speech service (${new URL(ttsUrl).host})`,
      check: (signal) => checkUrl(new URL("/health", ttsUrl).toString(), signal),
    });
    tts.called(call.up, call.detail);
  });
}

/**
 * An S3-compatible media store (`media.store_url`) as a part: frames and speech clips need it.
 * Its check is a listing of one key (s3Problem: reachable, the bucket there, the credentials
 * taken). A store on the data dir's disk is the disk part.
 */
function mediaStorePart(ctx: AppContext, board: PartsBoard): { where: string; part: EndpointPart } | null {
  const media = ctx.settings.media;
  if (!media.store_url) return null;
  const where = s3Location(media.store_url, media.store_region, media.store_timeout_seconds).where;
  const part = endpointPart(board, ctx.clock, {
    id: MEDIA_STORE_PART_ID,
    kind: "media_store",
    name: `Media store (${new URL(where).host})`,
    check: () => s3Problem(media),
  });
  return { where, part };
}
