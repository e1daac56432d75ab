/**
 * How the fake realtime model (realtime-server.ts) checks what clients send: strictly, with the
 * API's error codes (`unknown_parameter`, `invalid_type`, `invalid_value`,
 * `missing_required_parameter`), so a bridge that sends something the real API would refuse
 * fails against the fake too.
 */
import type { RealtimeItem, RealtimeSessionConfig, RealtimeTool, TurnDetection } from "./realtime-server";

/** A client event the API would refuse: answered with an `error` event, the connection stays open. */
export class ClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const typeName = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`);
export const invalidType = (param: string, expected: string, v: unknown) =>
  new ClientError("invalid_type", `Invalid type for '${param}': expected ${expected}, but got ${typeName(v)} instead.`, param);
export const missing = (param: string) => new ClientError("missing_required_parameter", `Missing required parameter: '${param}'.`, param);

export function str(v: unknown, param: string): string {
  if (v === undefined) throw missing(param);
  if (typeof v !== "string") throw invalidType(param, "a string", v);
  return v;
}

export function num(v: unknown, param: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw invalidType(param, "a number", v);
  return v;
}

export function oneOf<T extends string>(v: unknown, param: string, values: readonly T[]): T {
  if (!values.includes(str(v, param) as T))
    throw new ClientError("invalid_value", `Invalid value: '${String(v)}'. Supported values are: ${values.map((x) => `'${x}'`).join(", ")}.`, param);
  return v as T;
}

export function checkModalities(v: unknown, param: string): string[] {
  if (!Array.isArray(v)) throw invalidType(param, "an array", v);
  if (!v.length) throw new ClientError("invalid_value", `Invalid '${param}': empty array.`, param);
  return v.map((m, i) => oneOf(m, `${param}[${i}]`, ["text", "audio"]));
}

/** `param` is where the session keeps it: `session.turn_detection` (beta) or `session.audio.input.turn_detection` (GA). */
export function checkTurnDetection(v: unknown, param = "session.turn_detection"): TurnDetection | null {
  if (v === null) return null;
  if (!isObject(v)) throw invalidType(param, "an object", v);
  // Both VAD kinds are the fake's energy VAD; the other fields are kept as sent, over the API's defaults.
  oneOf(v.type ?? "server_vad", `${param}.type`, ["server_vad", "semantic_vad"]);
  for (const key of ["threshold", "prefix_padding_ms", "silence_duration_ms"]) if (v[key] !== undefined) num(v[key], `${param}.${key}`);
  for (const key of ["create_response", "interrupt_response"])
    if (v[key] !== undefined && typeof v[key] !== "boolean") throw invalidType(`${param}.${key}`, "a boolean", v[key]);
  return { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, ...v } as TurnDetection;
}

export function checkTools(v: unknown): RealtimeTool[] {
  if (!Array.isArray(v)) throw invalidType("session.tools", "an array", v);
  return v.map((t, i) => {
    const p = `session.tools[${i}]`;
    if (!isObject(t)) throw invalidType(p, "an object", t);
    oneOf(t.type, `${p}.type`, ["function"]);
    if (!str(t.name, `${p}.name`)) throw new ClientError("invalid_value", `Invalid '${p}.name': empty string.`, `${p}.name`);
    if (t.description !== undefined) str(t.description, `${p}.description`);
    if (t.parameters !== undefined && !isObject(t.parameters)) throw invalidType(`${p}.parameters`, "an object", t.parameters);
    return t as unknown as RealtimeTool;
  });
}

/** What `session.update` may set, and how each is checked (returning the value to keep). */
const SESSION_FIELDS: Record<string, (v: unknown) => unknown> = {
  model: (v) => str(v, "session.model"),
  instructions: (v) => str(v, "session.instructions"),
  voice: (v) => str(v, "session.voice"),
  modalities: (v) => checkModalities(v, "session.modalities"),
  // The VAD and the spoken tone are pcm16; g711 would be accepted by the API but not understood here.
  input_audio_format: (v) => oneOf(v, "session.input_audio_format", ["pcm16"]),
  output_audio_format: (v) => oneOf(v, "session.output_audio_format", ["pcm16"]),
  input_audio_transcription: (v) => {
    if (v !== null && !isObject(v)) throw invalidType("session.input_audio_transcription", "an object", v);
    return v;
  },
  turn_detection: (v) => checkTurnDetection(v),
  tools: checkTools,
  tool_choice: (v) => {
    if (isObject(v)) return (str(v.name, "session.tool_choice.name"), v);
    return oneOf(v, "session.tool_choice", ["auto", "none", "required"]);
  },
  temperature: (v) => num(v, "session.temperature"),
  max_response_output_tokens: (v) => (v === "inf" ? v : num(v, "session.max_response_output_tokens")),
  speed: (v) => num(v, "session.speed"),
  input_audio_noise_reduction: (v) => {
    if (v !== null && !isObject(v)) throw invalidType("session.input_audio_noise_reduction", "an object", v);
    return v;
  },
  tracing: (v) => v,
};

/** The session after an update: every field checked first, so a refused update changes nothing. */
export function checkSessionUpdate(current: RealtimeSessionConfig, session: unknown): RealtimeSessionConfig {
  if (session === undefined) throw missing("session");
  if (!isObject(session)) throw invalidType("session", "an object", session);
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(session)) {
    const check = SESSION_FIELDS[key];
    if (!check) throw new ClientError("unknown_parameter", `Unknown parameter: 'session.${key}'.`, `session.${key}`);
    next[key] = check(value);
  }
  return structuredClone(next) as unknown as RealtimeSessionConfig;
}

/** The content part types a message of each role may have: beta's, or GA's (where the model's own are `output_*`). */
const PART_TYPES = {
  beta: { user: ["input_text", "text", "input_audio"], system: ["input_text", "text"], assistant: ["input_text", "text"] },
  ga: { user: ["input_text", "input_audio", "input_image"], system: ["input_text"], assistant: ["output_text", "output_audio"] },
} as const;

/** A `conversation.item.create` item, as the server will echo it (with `id` given when the client sent none). */
export function checkItem(item: unknown, id: string, names: "beta" | "ga" = "beta"): RealtimeItem {
  if (item === undefined) throw missing("item");
  if (!isObject(item)) throw invalidType("item", "an object", item);
  const itemId = item.id === undefined ? id : str(item.id, "item.id");
  const type = oneOf(item.type, "item.type", ["message", "function_call_output"]);
  if (type === "function_call_output")
    return {
      id: itemId,
      object: "realtime.item",
      type,
      status: "completed",
      call_id: str(item.call_id, "item.call_id"),
      output: str(item.output, "item.output"),
    };
  const role = oneOf(item.role, "item.role", ["user", "system", "assistant"]);
  if (item.content === undefined) throw missing("item.content");
  if (!Array.isArray(item.content)) throw invalidType("item.content", "an array", item.content);
  const content = item.content.map((part: unknown, i) => {
    const p = `item.content[${i}]`;
    if (!isObject(part)) throw invalidType(p, "an object", part);
    const kind = oneOf(part.type, `${p}.type`, PART_TYPES[names][role]);
    if (kind === "input_audio" || kind === "output_audio") return { type: kind, transcript: part.transcript ?? null };
    if (kind === "input_image") return { type: kind, image_url: str(part.image_url, `${p}.image_url`) };
    return { type: kind, text: str(part.text, `${p}.text`) };
  });
  return { id: itemId, object: "realtime.item", type, status: "completed", role, content };
}
