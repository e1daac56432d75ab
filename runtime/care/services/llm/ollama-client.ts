/**
 * `api_type: ollama`: `/api/chat` through the official `ollama` client, non-streaming.
 * Images go as the message's base64 `images` list; a guided-decoding schema goes as `format`
 * (Ollama's structured outputs); max_tokens as `options.num_predict`.
 *
 * The client has no per-request timeout or signal for non-streamed calls (its `abort()` only
 * reaches streamed ones), so each request gets a client whose `fetch` option carries the
 * request's deadline signal.
 */
import { Ollama, type Message } from "ollama";
import { deadline, type Deadline } from "./deadline";
import { describeModel, excerpt, ModelServerError } from "./errors";
import type { ChatClient, ChatImage, ChatMessage, ChatRequest, ChatResult, ModelEntry } from "./types";

export const ollamaChatClient: ChatClient = {
  async chat(req: ChatRequest): Promise<ChatResult> {
    const entry = req.model;
    const limit = deadline(entry.timeout, req.signal);
    let response: unknown;
    try {
      const messages = await Promise.all(req.messages.map((m) => toOllamaMessage(m, limit.signal)));
      response = await clientFor(entry, limit.signal).chat({
        model: entry.model,
        messages,
        stream: false,
        ...(req.guided_json ? { format: req.guided_json } : {}),
        options: { num_predict: req.max_tokens ?? entry.max_tokens },
      });
    } catch (err) {
      throw serverError(entry, err, limit);
    }
    const content = (response as { message?: { content?: unknown } } | null)?.message?.content;
    if (typeof content !== "string") {
      throw new ModelServerError(entry.id, "bad_response", 200, `${describeModel(entry)} answered without a chat message`);
    }
    return { text: content };
  },
};

function clientFor(entry: ModelEntry, signal: AbortSignal): Ollama {
  return new Ollama({
    host: entry.base_url,
    headers: entry.api_key ? { Authorization: `Bearer ${entry.api_key}` } : {},
    fetch: (input, init) => fetch(input, { ...init, signal }).then(jsonErrors),
  });
}

/**
 * The client reads a non-JSON error body (a proxy's HTML page, say) by printing to the
 * console; turning it into Ollama's own `{"error": ...}` shape keeps the console quiet and
 * the text in the error.
 */
async function jsonErrors(res: Response): Promise<Response> {
  if (res.ok || res.headers.get("content-type")?.includes("application/json")) return res;
  const text = await res.text().catch(() => "");
  return new Response(JSON.stringify({ error: excerpt(text) || res.statusText }), {
    status: res.status,
    statusText: res.statusText,
    headers: { "content-type": "application/json" },
  });
}

async function toOllamaMessage(m: ChatMessage, signal: AbortSignal): Promise<Message> {
  if (!m.images?.length) return { role: m.role, content: m.text };
  // Bytes, not strings: the Node client reads a string image that names an existing file.
  const images = await Promise.all(m.images.map((i) => imageBytes(i, signal)));
  return { role: m.role, content: m.text, images };
}

async function imageBytes(image: ChatImage, signal: AbortSignal): Promise<Uint8Array> {
  if (!("url" in image)) return image.data;
  // Ollama takes no image URLs; fetch them here.
  const res = await fetch(image.url, { signal });
  if (!res.ok) throw new Error(`image ${image.url} answered HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

function serverError(entry: ModelEntry, err: unknown, limit: Deadline): ModelServerError {
  const who = describeModel(entry);
  if (limit.timedOut()) return new ModelServerError(entry.id, "timeout", null, `${who} did not answer within ${entry.timeout} s`);
  if (limit.aborted()) return new ModelServerError(entry.id, "aborted", null, `${who}: request aborted (step cancelled or timed out)`);
  const e = err as { name?: string; status_code?: unknown; error?: unknown; message?: string; cause?: unknown };
  if (e?.name === "ResponseError" && typeof e.status_code === "number") {
    const detail = excerpt(String(e.error ?? e.message ?? ""));
    return new ModelServerError(entry.id, "status", e.status_code, `${who} answered HTTP ${e.status_code}${detail ? `: ${detail}` : ""}`);
  }
  if (err instanceof SyntaxError) {
    return new ModelServerError(entry.id, "bad_response", null, `${who} sent a response that is not valid JSON: ${excerpt(err.message)}`);
  }
  const cause = e?.cause instanceof Error ? `: ${e.cause.message}` : "";
  return new ModelServerError(entry.id, "unreachable", null, `${who} is unreachable: ${e?.message ?? String(err)}${cause}`);
}
