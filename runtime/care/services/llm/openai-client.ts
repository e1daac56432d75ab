/**
 * `api_type: openai`: chat completions through the official `openai` client, for vLLM,
 * llama.cpp server, LM Studio and other OpenAI-style servers. Images go as `image_url` parts
 * (data URLs); a guided-decoding schema goes as `guided_json` in the body (vLLM's extension),
 * sent through the client's pass-through of undocumented body params.
 */
import type OpenAI from "openai";
import type { APIError } from "openai";
import { lazyModule } from "../../../platform/core/lazy-module";
import type { ChatCompletionContentPart, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { deadline, type Deadline } from "./deadline";
import { describeModel, excerpt, ModelServerError } from "./errors";
import { dataUrl, type ChatClient, type ChatMessage, type ChatRequest, type ChatResult, type ModelEntry } from "./types";

// Loaded at the first model call: most households start without a model server to ask.
const openai = lazyModule(() => require("openai") as typeof import("openai"));

type Body = ChatCompletionCreateParamsNonStreaming & { guided_json?: Record<string, unknown> };

export const openaiChatClient: ChatClient = {
  async chat(req: ChatRequest): Promise<ChatResult> {
    const entry = req.model;
    const limit = deadline(entry.timeout, req.signal);
    const body: Body = {
      model: entry.model,
      messages: req.messages.map(toOpenAiMessage),
      max_tokens: req.max_tokens ?? entry.max_tokens,
      ...(req.guided_json ? { guided_json: req.guided_json } : {}),
    };
    let completion: unknown;
    try {
      completion = await clientFor(entry).chat.completions.create(body, { signal: limit.signal });
    } catch (err) {
      throw serverError(entry, err, limit);
    }
    return { text: answerText(entry, completion) };
  },
};

function clientFor(entry: ModelEntry): OpenAI {
  // Every option is given so nothing is read from OPENAI_* environment variables: a key meant
  // for one server must never reach another. Without an api_key no Authorization header is
  // sent at all (the client insists on a key, so it gets a placeholder that is then removed).
  return new (openai().default)({
    baseURL: entry.base_url,
    apiKey: entry.api_key ?? "no-key",
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    defaultHeaders: entry.api_key ? {} : { Authorization: null },
    timeout: entry.timeout * 1000,
    // Transport retries would multiply the timeout past the step's 60 s budget; the
    // registry's max_retries is for hallucination retries, done by the step.
    maxRetries: 0,
    logLevel: "off",
  });
}

function toOpenAiMessage(m: ChatMessage): ChatCompletionMessageParam {
  if (m.role !== "user" || !m.images?.length) return { role: m.role, content: m.text } as ChatCompletionMessageParam;
  const parts: ChatCompletionContentPart[] = [{ type: "text", text: m.text }];
  for (const image of m.images) parts.push({ type: "image_url", image_url: { url: "url" in image ? image.url : dataUrl(image) } });
  return { role: "user", content: parts };
}

function answerText(entry: ModelEntry, completion: unknown): string {
  const choice = (completion as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0];
  const content = choice?.message?.content;
  if (typeof content !== "string") {
    throw new ModelServerError(entry.id, "bad_response", 200, `${describeModel(entry)} answered without a chat completion message`);
  }
  return content;
}

function serverError(entry: ModelEntry, err: unknown, limit: Deadline): ModelServerError {
  const who = describeModel(entry);
  if (limit.timedOut()) return new ModelServerError(entry.id, "timeout", null, `${who} did not answer within ${entry.timeout} s`);
  if (limit.aborted() || err instanceof openai().APIUserAbortError)
    return new ModelServerError(entry.id, "aborted", null, `${who}: request aborted (step cancelled or timed out)`);
  if (err instanceof openai().APIError && typeof err.status === "number") {
    const detail = errorDetail(err);
    return new ModelServerError(entry.id, "status", err.status, `${who} answered HTTP ${err.status}${detail ? `: ${detail}` : ""}`);
  }
  if (err instanceof openai().APIConnectionError) {
    const cause = err.cause instanceof Error ? err.cause.message : err.message;
    return new ModelServerError(entry.id, "unreachable", null, `${who} is unreachable: ${cause}`);
  }
  // What is left is a 2xx body the client could not parse.
  const message = err instanceof Error ? err.message : String(err);
  return new ModelServerError(entry.id, "bad_response", null, `${who} sent a response that is not valid JSON: ${excerpt(message)}`);
}

function errorDetail(err: APIError): string {
  const e = err.error as { message?: unknown } | string | undefined;
  if (typeof e === "string") return excerpt(e);
  if (e && typeof e.message === "string") return excerpt(e.message);
  if (e) return excerpt(JSON.stringify(e));
  // A body that is not JSON (a proxy's HTML page) is only in the message, after the status.
  return excerpt(err.message.replace(/^\d{3}\s*/, "").replace(/^status code \(no body\)$/, ""));
}
