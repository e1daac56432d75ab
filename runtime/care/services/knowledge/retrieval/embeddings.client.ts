/**
 * Turns texts into vectors with an `llm.models` entry of capability `embedding`: OpenAI-style
 * servers at `{base_url}/embeddings` (base_url ends in `/v1`, as for chat, so this is the
 * spec's `/v1/embeddings`), Ollama at `{base_url}/api/embed`. Plain fetch: both are one JSON
 * POST, and a failure must say which model and why (the embedder logs it and tries later).
 */
import { reportModelCall } from "../../llm/clients";
import { deadline } from "../../llm/deadline";
import { describeModel, excerpt, ModelServerError } from "../../llm/errors";
import type { ModelEntry } from "../../llm/types";

export type EmbeddingModel = ModelEntry;

/** The model answered with vectors of another size than `embedding.dim`. */
export class DimensionMismatchError extends Error {
  constructor(
    readonly modelId: string,
    readonly got: number,
    readonly want: number,
  ) {
    super(`model '${modelId}' returns vectors of ${got} dimensions but embedding.dim is ${want}: set embedding.dim to ${got} (vectors not stored)`);
    this.name = "DimensionMismatchError";
  }
}

function l2normalized(v: number[]): Float32Array {
  const out = Float32Array.from(v);
  let sum = 0;
  for (const x of out) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}

/** One vector per text, L2-normalized (so a dot product is the cosine), each of `dim` values. */
export async function embedTexts(entry: EmbeddingModel, texts: readonly string[], dim: number, signal?: AbortSignal): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  // The server's state as this call saw it, for its part on the board (health).
  return embedOnce(entry, texts, dim, signal).then(
    (vectors) => {
      reportModelCall(entry, null);
      return vectors;
    },
    (err: unknown) => {
      reportModelCall(entry, err);
      throw err;
    },
  );
}

async function embedOnce(entry: EmbeddingModel, texts: readonly string[], dim: number, signal?: AbortSignal): Promise<Float32Array[]> {
  const who = describeModel(entry);
  const limit = deadline(entry.timeout, signal);
  const url = entry.api_type === "ollama" ? `${entry.base_url}/api/embed` : `${entry.base_url}/embeddings`;
  const body = entry.api_type === "ollama" ? { model: entry.model, input: texts } : { model: entry.model, input: texts, encoding_format: "float" };
  const send = (): Promise<Response> =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(entry.api_key ? { authorization: `Bearer ${entry.api_key}` } : {}) },
      body: JSON.stringify(body),
      signal: limit.signal,
    });
  let res: Response;
  try {
    // Once more on a connection error: a kept-alive socket the server closed meanwhile fails the first try.
    res = await send().catch((err: unknown) => {
      if (limit.signal.aborted) throw err;
      return send();
    });
  } catch (err) {
    if (limit.timedOut()) throw new ModelServerError(entry.id, "timeout", null, `${who} did not answer within ${entry.timeout} s`);
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    throw new ModelServerError(entry.id, "unreachable", null, `${who} is unreachable: ${err instanceof Error ? err.message : String(err)}${cause}`);
  }
  const text = await res.text().catch(() => "");
  if (!res.ok) throw new ModelServerError(entry.id, "status", res.status, `${who} answered HTTP ${res.status}: ${excerpt(text)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ModelServerError(entry.id, "bad_response", res.status, `${who} sent embeddings that are not JSON: ${excerpt(text)}`);
  }
  const vectors =
    entry.api_type === "ollama"
      ? (parsed as { embeddings?: unknown }).embeddings
      : ((parsed as { data?: Array<{ index?: number; embedding?: unknown }> }).data ?? [])
          .slice()
          .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
          .map((d) => d.embedding);
  if (!Array.isArray(vectors) || vectors.length !== texts.length || !vectors.every((v) => Array.isArray(v) && v.every((x) => typeof x === "number"))) {
    throw new ModelServerError(entry.id, "bad_response", res.status, `${who} did not send one vector per text`);
  }
  for (const v of vectors as number[][]) if (v.length !== dim) throw new DimensionMismatchError(entry.id, v.length, dim);
  return (vectors as number[][]).map(l2normalized);
}
