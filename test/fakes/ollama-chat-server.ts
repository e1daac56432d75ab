import { ollamaChatRequest, ollamaEmbedRequest } from "./model-requests";
import { ollamaRefusal, startScriptedServer, type ScriptedServer } from "./openai-chat-server";

export type { ScriptedReply, ScriptedServer } from "./openai-chat-server";

export interface FakeOllamaOptions {
  /** Models the server has pulled; others get Ollama's 404. Any model when unset. */
  models?: string[];
  /** The port to listen on (a test brings a stopped server back at its address); any free one when unset. */
  port?: number;
}

/**
 * A fake Ollama (`POST /api/chat`) with the server's body shapes: `{message, done}` answers and
 * `{"error": ...}` failures, and Ollama's 400 for a body it cannot take (model-requests.ts). It answers non-streamed only, as careflow asks (`stream: false`);
 * a request that streams gets a 400 so a client change that starts streaming is noticed.
 */
export function startFakeOllamaChatServer(options: FakeOllamaOptions = {}): Promise<ScriptedServer> {
  return startScriptedServer(
    "/api/chat",
    "",
    {
      ok: (body, content) => ({
        model: body.model,
        created_at: "2026-11-22T10:00:00.000000Z",
        message: { role: "assistant", content },
        done_reason: "stop",
        done: true,
        total_duration: 1_000_000,
        load_duration: 1000,
        prompt_eval_count: 10,
        eval_count: 5,
      }),
      error: (_status, message) => ({ error: message }),
      unknownModel: (body) => {
        if (body?.stream !== false) return { status: 400, message: "fake ollama answers non-streamed requests only" };
        return options.models && !options.models.includes(body?.model) ? { status: 404, message: `model '${String(body?.model)}' not found` } : null;
      },
      embed: { path: "/api/embed", ok: (body, embeddings) => ({ model: body.model, embeddings, total_duration: 1_000_000, prompt_eval_count: 10 }) },
      schemas: { chat: ollamaChatRequest, embed: ollamaEmbedRequest, refuse: ollamaRefusal },
      list: { path: "/api/tags", ok: () => ({ models: (options.models ?? ["any"]).map((name) => ({ name, model: name, size: 1 })) }) },
    },
    options.port,
  );
}
