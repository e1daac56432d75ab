/** The chat client for an entry's api_type, and the one call the steps make. */
import { reportServiceCall } from "../../../platform/health/service-calls";
import { ModelServerError } from "./errors";
import { ollamaChatClient } from "./ollama-client";
import { openaiChatClient } from "./openai-client";
import type { ChatClient, ChatRequest, ChatResult, ModelEntry } from "./types";

const CLIENTS: Record<ModelEntry["api_type"], ChatClient> = {
  openai: openaiChatClient,
  ollama: ollamaChatClient,
};

export const chat = (request: ChatRequest): Promise<ChatResult> =>
  CLIENTS[request.model.api_type].chat(request).then(
    (result) => {
      reportModelCall(request.model, null);
      return result;
    },
    (err: unknown) => {
      reportModelCall(request.model, err);
      throw err;
    },
  );

/**
 * The server's state as a call saw it, for its part on the board: unreachable, out of time or
 * a 5xx is the server failing; an answer careflow could not use (a 4xx, bad JSON) is still an
 * answer; a call the step cancelled says nothing about the server.
 */
export function reportModelCall(model: ModelEntry, err: unknown): void {
  if (err === null) return reportServiceCall({ service: "model", url: model.base_url, up: true });
  if (!(err instanceof ModelServerError) || err.failure === "aborted") return;
  const failing = err.failure === "unreachable" || err.failure === "timeout" || (err.failure === "status" && (err.status ?? 0) >= 500);
  reportServiceCall({ service: "model", url: model.base_url, up: !failing, ...(failing ? { detail: err.message } : {}) });
}
