import { z } from "zod";
import { RESPONSE_FORMATS, isResponseFormat, type ResponseFormat } from "../audio/formats";
import { ValidationError } from "../errors";

export const MAX_INPUT_CHARS = 4096;
export const MIN_SPEED = 0.25;
export const MAX_SPEED = 4;

export interface SpeechRequest {
  model?: string;
  input: string;
  voice?: string;
  response_format: ResponseFormat;
  speed: number;
  language?: string;
  stream: boolean;
}

/** Characters as people count them (code points), not UTF-16 units. */
const charCount = (text: string) => Array.from(text).length;

const formatList = RESPONSE_FORMATS.join(", ");

const schema = z.object({
  model: z.string({ error: "must be a string" }).trim().min(1, { error: "must not be empty" }).optional(),
  input: z
    .string({ error: "required, a string of text to speak" })
    .refine((text) => text.trim().length > 0, { error: "must not be empty" })
    .refine((text) => charCount(text) <= MAX_INPUT_CHARS, { error: `must be at most ${MAX_INPUT_CHARS} characters` })
    .refine((text) => /[\p{L}\p{N}]/u.test(text), { error: "has nothing to speak (no letters or digits)" }),
  // OpenAI clients may send a custom voice as `{ "id": "..." }`.
  voice: z
    .union([z.string(), z.object({ id: z.string() })], { error: "must be a voice id" })
    .transform((voice) => (typeof voice === "string" ? voice : voice.id).trim())
    .refine((voice) => voice.length > 0, { error: "must not be empty" })
    .optional(),
  response_format: z
    .string({ error: "must be a string" })
    .refine(isResponseFormat, { error: (issue) => `unsupported format '${String(issue.input)}'; supported: ${formatList}` })
    .default("mp3"),
  speed: z
    .number({ error: `must be a number from ${MIN_SPEED} to ${MAX_SPEED}` })
    .min(MIN_SPEED, { error: `must be from ${MIN_SPEED} to ${MAX_SPEED}` })
    .max(MAX_SPEED, { error: `must be from ${MIN_SPEED} to ${MAX_SPEED}` })
    .default(1),
  language: z.string({ error: "must be a language code" }).trim().min(1, { error: "must not be empty" }).optional(),
  stream: z.boolean({ error: "must be true or false" }).default(false),
});

/** Validates a speech body; the first problem becomes a 422 naming its field. */
export function parseSpeechRequest(body: unknown): SpeechRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ValidationError("body", "must be a JSON object");
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ValidationError(issue.path.join(".") || "body", issue.message);
  }
  const { response_format, ...rest } = result.data;
  return { ...rest, response_format: response_format as ResponseFormat };
}
