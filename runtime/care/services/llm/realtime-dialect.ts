/**
 * The two dialects of the Realtime API: beta (`OpenAI-Beta: realtime=v1`) and GA. The voice
 * companion speaks beta; on a GA server its client reads the GA event names as their beta
 * twins and sends its session in the GA shape, since a GA server refuses beta's flat session
 * fields (`Unknown parameter: 'session.modalities'`).
 */
/** An event of the protocol (realtime-client.ts's RealtimeEvent, kept apart so neither module imports the other). */
interface RealtimeEvent {
  type: string;
  [k: string]: unknown;
}

/** GA event names a server may send, read as the beta names this client speaks. */
export const GA_TO_BETA: Record<string, string> = {
  "response.output_audio.delta": "response.audio.delta",
  "response.output_audio.done": "response.audio.done",
  "response.output_audio_transcript.delta": "response.audio_transcript.delta",
  "response.output_audio_transcript.done": "response.audio_transcript.done",
  "response.output_text.delta": "response.text.delta",
  "response.output_text.done": "response.text.done",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A GA server's session (in `session.created`) says `type: "realtime"`; a beta one has no type. */
export const isGaSession = (session: unknown): boolean => isObject(session) && session.type === "realtime";

/** Beta's `pcm16` as a GA format; other formats are passed as the beta name for the server to judge. */
const gaFormat = (format: unknown): unknown => (format === "pcm16" ? { type: "audio/pcm", rate: 24000 } : format);

/** GA takes one output modality: audio (which brings its transcript) or text. */
const gaModalities = (modalities: unknown): string[] | undefined =>
  Array.isArray(modalities) ? (modalities.includes("audio") ? ["audio"] : ["text"]) : undefined;

/** Keeps the fields that are set, so an update changes only what it names. */
function defined(fields: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length ? kept : undefined;
}

/** A beta session, as a GA `session.update` carries it. */
export function gaSessionOf(s: Record<string, unknown>): Record<string, unknown> {
  const input = defined({
    format: s.input_audio_format === undefined ? undefined : gaFormat(s.input_audio_format),
    transcription: s.input_audio_transcription,
    turn_detection: s.turn_detection,
    noise_reduction: s.input_audio_noise_reduction,
  });
  const output = defined({ format: s.output_audio_format === undefined ? undefined : gaFormat(s.output_audio_format), voice: s.voice, speed: s.speed });
  const audio = defined({ input, output });
  return {
    type: "realtime",
    ...defined({
      model: s.model,
      instructions: s.instructions,
      output_modalities: gaModalities(s.modalities),
      audio,
      tools: s.tools,
      tool_choice: s.tool_choice,
      max_output_tokens: s.max_response_output_tokens,
      tracing: s.tracing,
    }),
  };
}

/** A client event in beta's shape, as a GA server takes it (only the session and a response's modalities differ). */
export function toGaClientEvent(event: RealtimeEvent): RealtimeEvent {
  if (event.type === "session.update" && isObject(event.session)) return { ...event, session: gaSessionOf(event.session) };
  if (event.type === "response.create" && isObject(event.response) && event.response.modalities !== undefined) {
    const { modalities, ...rest } = event.response;
    return { ...event, response: { ...rest, output_modalities: gaModalities(modalities) } };
  }
  return event;
}
