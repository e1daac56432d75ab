/**
 * The `llm.models` registry from settings: lookup by id for the steps, and a listing
 * without secrets for `GET /pipeline/llm-models`.
 */
import type { Settings } from "../../../../settings";
import { UnknownModelError } from "./errors";
import type { ModelEntry } from "./types";

/** What the API shows of an entry: everything but `api_key`. */
export type PublicModelEntry = Omit<ModelEntry, "api_key">;

export function findModel(settings: Settings, id: string): ModelEntry {
  const entry = settings.llm.models.find((m) => m.id === id);
  if (!entry) throw new UnknownModelError(id);
  return entry;
}

export const hasCapability = (entry: ModelEntry, capability: ModelEntry["capabilities"][number]): boolean => entry.capabilities.includes(capability);

export function listModels(settings: Settings): PublicModelEntry[] {
  // Listed field by field (not `...rest`) so a secret added to entries later is not shown by default.
  return settings.llm.models.map((m) => ({
    id: m.id,
    name: m.name ?? m.id,
    api_type: m.api_type,
    base_url: m.base_url,
    model: m.model,
    capabilities: [...m.capabilities],
    max_tokens: m.max_tokens,
    timeout: m.timeout,
    guided_decoding: m.guided_decoding,
    max_retries: m.max_retries,
  }));
}
