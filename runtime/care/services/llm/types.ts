/**
 * What a chat with a registry model takes and gives, whatever the server speaks. The step
 * builds messages once; each api type's client turns them into its own wire format.
 */
import type { Settings } from "../../../../settings";

/** One `llm.models` entry, with the settings' defaults applied. */
export type ModelEntry = Settings["llm"]["models"][number];

/** An image as bytes (sent inline) or, for servers that fetch, a URL. */
export type ChatImage = { mime: string; data: Buffer } | { url: string };

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  text: string;
  images?: ChatImage[];
}

export interface ChatRequest {
  model: ModelEntry;
  messages: ChatMessage[];
  /** Defaults to the entry's max_tokens. */
  max_tokens?: number;
  /** A JSON Schema the server must constrain its answer to (guided decoding). */
  guided_json?: Record<string, unknown>;
  /** Aborted when the step is cancelled or times out. */
  signal?: AbortSignal;
}

export interface ChatResult {
  text: string;
}

export interface ChatClient {
  chat(request: ChatRequest): Promise<ChatResult>;
}

export const dataUrl = (image: { mime: string; data: Buffer }): string => `data:${image.mime};base64,${image.data.toString("base64")}`;
