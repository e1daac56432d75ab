/**
 * The GA dialect of the fake realtime model (realtime-server.ts, `names: "ga"`): the Realtime
 * API as it is without `OpenAI-Beta: realtime=v1`. The connection keeps its session in the
 * beta shape inside; this module checks a GA `session.update` into that shape, shows the
 * session in the GA shape, and renames what the server sends.
 *
 * What differs from beta (developers.openai.com, "Realtime API: beta to GA"): the session has
 * `type: "realtime"`, `output_modalities` (audio or text, not both), and its audio settings
 * under `audio.input` (`format`, `transcription`, `turn_detection`, `noise_reduction`) and
 * `audio.output` (`format`, `voice`, `speed`); formats are objects (`{type: "audio/pcm",
 * rate: 24000}`); `max_response_output_tokens` is `max_output_tokens`; there is no session
 * temperature. Server events: `response.output_audio.*`, `response.output_audio_transcript.*`,
 * `response.output_text.*`; `conversation.item.added` then `conversation.item.done` instead of
 * `conversation.item.created`; the model's content parts are `output_audio` / `output_text`.
 */
import type { RealtimeSessionConfig } from "./realtime-server";
import { checkTools, checkTurnDetection, ClientError, invalidType, isObject, missing, oneOf, str, num } from "./realtime-validate";

export type RealtimeNames = "beta" | "ga";

const PCM = { type: "audio/pcm", rate: 24000 };

/** The session as GA's `session.created` / `session.updated` carry it. */
export function gaSession(c: RealtimeSessionConfig): Record<string, unknown> {
  return {
    type: "realtime",
    object: "realtime.session",
    id: c.id,
    model: c.model,
    output_modalities: c.modalities.includes("audio") ? ["audio"] : ["text"],
    instructions: c.instructions,
    audio: {
      input: {
        format: PCM,
        transcription: c.input_audio_transcription,
        noise_reduction: c.input_audio_noise_reduction ?? null,
        turn_detection: c.turn_detection,
      },
      output: { format: PCM, voice: c.voice, speed: c.speed ?? 1 },
    },
    tools: c.tools,
    tool_choice: c.tool_choice,
    max_output_tokens: c.max_response_output_tokens,
    tracing: c.tracing ?? null,
    truncation: "auto",
    prompt: null,
    include: null,
  };
}

function unknown(param: string): ClientError {
  return new ClientError("unknown_parameter", `Unknown parameter: '${param}'.`, param);
}

/** Each key of an object is one the API knows, else `unknown_parameter` (a beta field in a GA session among them). */
function known(v: unknown, param: string, keys: readonly string[]): Record<string, unknown> {
  if (!isObject(v)) throw invalidType(param, "an object", v);
  for (const key of Object.keys(v)) if (!keys.includes(key)) throw unknown(`${param}.${key}`);
  return v;
}

/** Only pcm at 24 kHz: the VAD and the spoken tone are pcm16 (the API also takes G.711, not understood here). */
function checkFormat(v: unknown, param: string): void {
  const f = known(v, param, ["type", "rate"]);
  oneOf(f.type, `${param}.type`, ["audio/pcm"]);
  if (f.rate !== undefined && f.rate !== 24000) throw new ClientError("invalid_value", `Invalid '${param}.rate': only 24000 is supported.`, `${param}.rate`);
}

function nullableObject(v: unknown, param: string): Record<string, unknown> | null {
  if (v !== null && !isObject(v)) throw invalidType(param, "an object", v);
  return v;
}

/** A GA `session.update`'s session, merged into the connection's (beta-shaped) session; every field checked first. */
export function checkGaSessionUpdate(current: RealtimeSessionConfig, session: unknown): RealtimeSessionConfig {
  if (session === undefined) throw missing("session");
  const s = known(session, "session", [
    "type",
    "model",
    "instructions",
    "output_modalities",
    "audio",
    "tools",
    "tool_choice",
    "max_output_tokens",
    "tracing",
    "truncation",
    "prompt",
    "include",
  ]);
  oneOf(s.type, "session.type", ["realtime"]);
  const next: RealtimeSessionConfig = structuredClone(current);
  if (s.model !== undefined) next.model = str(s.model, "session.model");
  if (s.instructions !== undefined) next.instructions = str(s.instructions, "session.instructions");
  if (s.output_modalities !== undefined) {
    if (!Array.isArray(s.output_modalities)) throw invalidType("session.output_modalities", "an array", s.output_modalities);
    if (s.output_modalities.length !== 1)
      throw new ClientError("invalid_value", "Invalid 'session.output_modalities': give one of 'audio' or 'text'.", "session.output_modalities");
    const m = oneOf(s.output_modalities[0], "session.output_modalities[0]", ["audio", "text"]);
    next.modalities = m === "audio" ? ["text", "audio"] : ["text"];
  }
  if (s.audio !== undefined) {
    const audio = known(s.audio, "session.audio", ["input", "output"]);
    if (audio.input !== undefined) {
      const input = known(audio.input, "session.audio.input", ["format", "transcription", "turn_detection", "noise_reduction"]);
      if (input.format !== undefined) checkFormat(input.format, "session.audio.input.format");
      if (input.transcription !== undefined) next.input_audio_transcription = nullableObject(input.transcription, "session.audio.input.transcription");
      if (input.turn_detection !== undefined) next.turn_detection = checkTurnDetection(input.turn_detection, "session.audio.input.turn_detection");
      if (input.noise_reduction !== undefined) next.input_audio_noise_reduction = nullableObject(input.noise_reduction, "session.audio.input.noise_reduction");
    }
    if (audio.output !== undefined) {
      const output = known(audio.output, "session.audio.output", ["format", "voice", "speed"]);
      if (output.format !== undefined) checkFormat(output.format, "session.audio.output.format");
      if (output.voice !== undefined) next.voice = str(output.voice, "session.audio.output.voice");
      if (output.speed !== undefined) next.speed = num(output.speed, "session.audio.output.speed");
    }
  }
  if (s.tools !== undefined) next.tools = checkTools(s.tools);
  if (s.tool_choice !== undefined)
    next.tool_choice = isObject(s.tool_choice)
      ? (str(s.tool_choice.name, "session.tool_choice.name"), s.tool_choice)
      : oneOf(s.tool_choice, "session.tool_choice", ["auto", "none", "required"]);
  if (s.max_output_tokens !== undefined)
    next.max_response_output_tokens = s.max_output_tokens === "inf" ? "inf" : num(s.max_output_tokens, "session.max_output_tokens");
  if (s.tracing !== undefined) next.tracing = s.tracing as RealtimeSessionConfig["tracing"];
  return next;
}

/** `response.create`'s `response` in GA: `output_modalities` (one of audio or text), never beta's `modalities`. */
export function gaResponseModalities(response: Record<string, unknown>): string[] | undefined {
  if (response.modalities !== undefined) throw unknown("response.modalities");
  if (response.output_modalities === undefined) return undefined;
  if (!Array.isArray(response.output_modalities) || response.output_modalities.length !== 1)
    throw new ClientError("invalid_value", "Invalid 'response.output_modalities': give one of 'audio' or 'text'.", "response.output_modalities");
  return oneOf(response.output_modalities[0], "response.output_modalities[0]", ["audio", "text"]) === "audio" ? ["text", "audio"] : ["text"];
}

const RENAMED: Record<string, string> = {
  "response.audio.delta": "response.output_audio.delta",
  "response.audio.done": "response.output_audio.done",
  "response.audio_transcript.delta": "response.output_audio_transcript.delta",
  "response.audio_transcript.done": "response.output_audio_transcript.done",
  "response.text.delta": "response.output_text.delta",
  "response.text.done": "response.output_text.done",
};

/** The model's own content parts: `audio` / `text` in beta, `output_audio` / `output_text` in GA. */
function gaPart(part: unknown): unknown {
  if (!isObject(part)) return part;
  if (part.type === "audio") return { ...part, type: "output_audio" };
  if (part.type === "text") return { ...part, type: "output_text" };
  return part;
}

function gaItem(item: unknown): unknown {
  if (!isObject(item) || !Array.isArray(item.content) || item.role !== "assistant") return item;
  return { ...item, content: item.content.map(gaPart) };
}

/** A server event in beta names and shapes, as GA sends it (one event, or two where GA splits it). */
export function toGa(type: string, fields: Record<string, unknown>): Array<[string, Record<string, unknown>]> {
  const f = { ...fields };
  if (f.part !== undefined) f.part = gaPart(f.part);
  if (f.item !== undefined) f.item = gaItem(f.item);
  if (isObject(f.response) && Array.isArray(f.response.output)) f.response = { ...f.response, output: f.response.output.map(gaItem) };
  if (type === "conversation.item.created") {
    const done = isObject(f.item) && f.item.status === "completed";
    return done
      ? [
          ["conversation.item.added", f],
          ["conversation.item.done", { item: f.item }],
        ]
      : [["conversation.item.added", f]];
  }
  return [[RENAMED[type] ?? type, f]];
}
