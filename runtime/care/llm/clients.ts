/** The chat client for an entry's api_type, and the one call the steps make. */
import { ollamaChatClient } from "./ollama-client";
import { openaiChatClient } from "./openai-client";
import type { ChatClient, ChatRequest, ChatResult, ModelEntry } from "./types";

const CLIENTS: Record<ModelEntry["api_type"], ChatClient> = {
  openai: openaiChatClient,
  ollama: ollamaChatClient,
};

export const chat = (request: ChatRequest): Promise<ChatResult> => CLIENTS[request.model.api_type].chat(request);
