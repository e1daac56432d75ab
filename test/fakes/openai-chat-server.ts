import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import type { z } from "zod";
import { ollamaProblem, openAiChatRequest, openAiEmbeddingsRequest, openAiProblem, type OpenAiDialect, type Refusal } from "./model-requests";

/**
 * A fake OpenAI-style chat server (`POST /v1/chat/completions`, as vLLM and llama.cpp serve
 * it) that records every request and answers from a script: a content, an error status with
 * the server's error body, a body that is not JSON, a slow answer, or no answer at all.
 * The scripting is shared with the Ollama fake.
 */
export type ScriptedReply =
  /** A normal answer whose message content is `content`. */
  | { content: string; delayMs?: number }
  /** An error status with the server's own error body. */
  | { status: number; error: string; delayMs?: number }
  /** A body sent as is (broken JSON, an HTML page). */
  | { raw: string; status?: number; contentType?: string }
  /** Headers and body are never sent (until the server closes). */
  | { hang: true };

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: any;
}

export interface ScriptedServer {
  /** The base URL a registry entry names (`…/v1` for OpenAI-style, the root for Ollama). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** The listing requests (careflow's health check), apart so the chat tests' counts are not changed by it. */
  checks: RecordedRequest[];
  /** Replies for the next requests, in order; once used up every request gets `fallback`. */
  script(...replies: ScriptedReply[]): void;
  fallback: ScriptedReply;
  /** The requests refused with 400 because the real server would refuse them (their body fails its schema). */
  refusals: Refusal[];
  /** Forget recorded requests, refusals and unused replies; the fallback answers "ok" again. */
  reset(): void;
  /** The embeddings route (`/v1/embeddings`, `/api/embed`): the size of its vectors, and a status to fail with instead. */
  embeddings: { dim: number; failWith: number | null };
  close(): Promise<void>;
}

/**
 * A deterministic embedding of a text: a hashed bag of its lower-case words (each word adds
 * ±1 at a position its hash picks), L2-normalized. Texts that share words are close, so a
 * test knows which chunk a question is nearest to.
 */
export function fakeEmbedding(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619) >>> 0;
    v[h % dim] += (h >>> 31) & 1 ? -1 : 1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

export interface ProtocolAnswer {
  /** The success body for a content. */
  ok(body: any, content: string): unknown;
  /** The error body for a status. */
  error(status: number, message: string): unknown;
  /** A model the server does not have, or null when the model is served. */
  unknownModel(body: any): { status: number; message: string } | null;
  /** The embeddings route of this protocol and its body for the vectors. */
  embed?: { path: string; ok(body: any, vectors: number[][]): unknown };
  /** The listing of the models served (`GET /v1/models`, `GET /api/tags`): careflow's cheap check. */
  list?: { path: string; ok(): unknown };
  /** The request schemas of the chat and embeddings routes, and how the server words a refusal. */
  schemas: { chat: z.ZodType; embed: z.ZodType; refuse(error: z.ZodError, body: unknown): { problem: Omit<Refusal, "path" | "body">; answer: unknown } };
}

export async function startScriptedServer(routePath: string, basePath: string, protocol: ProtocolAnswer, port = 0): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const checks: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];
  const app = express();
  app.use(express.json({ limit: "50mb" }));
  const refusals: Refusal[] = [];
  const state = { fallback: { content: "ok" } as ScriptedReply };
  /** Refuses (400, the server's words) a body the real server would refuse; true when it did. */
  const refused = (schema: z.ZodType, req: express.Request, res: express.Response): boolean => {
    const parsed = schema.safeParse(req.body);
    if (parsed.success) return false;
    const { problem, answer } = protocol.schemas.refuse(parsed.error, req.body);
    refusals.push({ path: req.path, body: req.body, ...problem });
    res.status(400).json(answer);
    return true;
  };

  app.post(routePath, async (req, res) => {
    requests.push({ method: req.method, path: req.path, authorization: req.get("authorization"), body: req.body });
    // Before the script: a real server looks at the body before it does anything else.
    if (refused(protocol.schemas.chat, req, res)) return;
    const reply = queue.shift() ?? state.fallback;
    if ("hang" in reply) return;
    if ("delayMs" in reply && reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if ("raw" in reply) {
      res
        .status(reply.status ?? 200)
        .type(reply.contentType ?? "application/json")
        .send(reply.raw);
      return;
    }
    const unknown = protocol.unknownModel(req.body);
    if (unknown) return void res.status(unknown.status).json(protocol.error(unknown.status, unknown.message));
    if ("status" in reply) return void res.status(reply.status).json(protocol.error(reply.status, reply.error));
    res.json(protocol.ok(req.body, reply.content));
  });
  const embeddings = { dim: 768, failWith: null as number | null };
  if (protocol.embed) {
    const embed = protocol.embed;
    app.post(embed.path, (req, res) => {
      requests.push({ method: req.method, path: req.path, authorization: req.get("authorization"), body: req.body });
      if (refused(protocol.schemas.embed, req, res)) return;
      const unknown = protocol.unknownModel({ stream: false, ...req.body });
      if (unknown) return void res.status(unknown.status).json(protocol.error(unknown.status, unknown.message));
      if (embeddings.failWith !== null) return void res.status(embeddings.failWith).json(protocol.error(embeddings.failWith, "embedding failed"));
      const input: unknown = req.body?.input;
      const texts = Array.isArray(input) ? input : [input];
      if (!texts.every((t) => typeof t === "string")) return void res.status(400).json(protocol.error(400, "input must be text or a list of texts"));
      res.json(
        embed.ok(
          req.body,
          (texts as string[]).map((t) => fakeEmbedding(t, embeddings.dim)),
        ),
      );
    });
  }
  if (protocol.list) {
    const list = protocol.list;
    app.get(list.path, (req, res) => {
      checks.push({ method: req.method, path: req.path, authorization: req.get("authorization"), body: null });
      res.json(list.ok());
    });
  }
  app.use((req, res) => res.status(404).json(protocol.error(404, `no route ${req.method} ${req.path}`)));

  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${bound}${basePath}`,
    requests,
    checks,
    refusals,
    embeddings,
    script: (...replies) => void queue.push(...replies),
    get fallback() {
      return state.fallback;
    },
    set fallback(r: ScriptedReply) {
      state.fallback = r;
    },
    reset() {
      requests.length = 0;
      checks.length = 0;
      refusals.length = 0;
      queue.length = 0;
      state.fallback = { content: "ok" };
      embeddings.failWith = null;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface FakeOpenAiOptions {
  /** Models the server serves; others get vLLM's 404. Any model when unset. */
  models?: string[];
  /** The port to listen on (a test brings a stopped server back at its address); any free one when unset. */
  port?: number;
  /** vLLM (default: what careflow's `api_type: openai` talks to, guided decoding included) or OpenAI itself, which refuses vLLM's fields. */
  dialect?: OpenAiDialect;
}

/** OpenAI's refusal of a body: 400 `{"error": {message, type, param, code}}`. */
function openAiRefusal(error: z.ZodError, body: unknown) {
  const problem = openAiProblem(error, body);
  return { problem, answer: { error: { message: problem.message, type: "invalid_request_error", param: problem.param, code: problem.code } } };
}

/** Ollama's refusal of a body: 400 `{"error": "..."}`. */
export function ollamaRefusal(error: z.ZodError, body: unknown) {
  const message = ollamaProblem(error, body);
  return { problem: { message, param: null, code: null }, answer: { error: message } };
}

/** OpenAI chat completions: the body shapes of the API (and of vLLM, which copies it). */
export function startFakeOpenAiChatServer(options: FakeOpenAiOptions = {}): Promise<ScriptedServer> {
  let n = 0;
  return startScriptedServer(
    "/v1/chat/completions",
    "/v1",
    {
      ok: (body, content) => ({
        id: `chatcmpl-${++n}`,
        object: "chat.completion",
        created: 1795000000,
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop", logprobs: null }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
      error: (status, message) => ({ error: { message, type: status >= 500 ? "InternalServerError" : "BadRequestError", code: status } }),
      unknownModel: (body) =>
        options.models && !options.models.includes(body?.model) ? { status: 404, message: `The model \`${String(body?.model)}\` does not exist.` } : null,
      embed: {
        path: "/v1/embeddings",
        ok: (body, vectors) => ({
          object: "list",
          data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
          model: body.model,
          usage: { prompt_tokens: 10, total_tokens: 10 },
        }),
      },
      schemas: { chat: openAiChatRequest(options.dialect ?? "vllm"), embed: openAiEmbeddingsRequest, refuse: openAiRefusal },
      list: { path: "/v1/models", ok: () => ({ object: "list", data: (options.models ?? ["any"]).map((id) => ({ id, object: "model", owned_by: "fake" })) }) },
    },
    options.port,
  );
}

/** The text parts and image URLs of an OpenAI-style user message. */
export function openAiParts(message: any): { text: string; images: string[] } {
  if (typeof message.content === "string") return { text: message.content, images: [] };
  const parts: any[] = message.content;
  return {
    text: parts
      .filter((p) => p.type === "text")
      .map((p) => p.text)
      .join("\n"),
    images: parts.filter((p) => p.type === "image_url").map((p) => p.image_url.url),
  };
}
