/**
 * How the fake realtime model (realtime-server.ts) plays a response: function calls with their
 * arguments in pieces, or a spoken message (tone and transcript interleaved) or a text one.
 * Events go out as fast as the socket takes them; between chunks the event loop gets a turn,
 * so a `response.cancel` (or speech over the model) that arrives meanwhile stops it mid-way.
 */
import crypto from "node:crypto";
import { spokenAudio } from "./realtime-audio";
import type { RealtimeItem, Turn } from "./realtime-server";

let idCounter = 0;
/** An id in the API's form (`event_…`, `item_…`); the counter keeps them unique, the random part makes them look like real ones. */
export function realtimeId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(9).toString("base64url").replace(/[-_]/g, "x")}${(++idCounter).toString(36)}`;
}

/** Lets a cancel (or a close) that arrived meanwhile be handled before the next chunk. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** 50 ms of pcm16 at 24 kHz. */
const CHUNK_BYTES = 2400;
const MS_PER_CHAR = 60;

export interface ActiveResponse {
  id: string;
  output: RealtimeItem[];
  /** Set when it completed, was cancelled or its connection closed: playing stops at the next chunk. */
  ended: boolean;
}

/** What a response does: a turn's function calls, or its words. */
export type Plan = { calls: NonNullable<Turn["calls"]> } | { say: string };

/** The connection, as a response needs it. */
export interface ResponseSink {
  send(type: string, fields: Record<string, unknown>): void;
  /** An output item begins; it is part of the conversation from now on. */
  itemAdded(item: RealtimeItem): void;
  /** The model called a function: an output for this call_id is now welcome. */
  callMade(callId: string, name: string): void;
}

/** Plays the plan's output items; true if it got to the end, false if the response ended meanwhile. */
export async function playResponse(sink: ResponseSink, r: ActiveResponse, plan: Plan, audio: boolean): Promise<boolean> {
  await tick();
  if (!("calls" in plan)) return playMessage(sink, r, 0, plan.say, audio);
  for (const [i, call] of plan.calls.entries()) if (!(await playCall(sink, r, i, call))) return false;
  return true;
}

async function playCall(sink: ResponseSink, r: ActiveResponse, outputIndex: number, call: NonNullable<Turn["calls"]>[number]): Promise<boolean> {
  if (r.ended) return false;
  const callId = realtimeId("call");
  const args = JSON.stringify(call.arguments ?? {});
  const item: RealtimeItem = {
    id: realtimeId("item"),
    object: "realtime.item",
    type: "function_call",
    status: "in_progress",
    name: call.name,
    call_id: callId,
    arguments: "",
  };
  r.output.push(item);
  sink.itemAdded(item);
  sink.callMade(callId, call.name);
  const ids = { response_id: r.id, item_id: item.id, output_index: outputIndex, call_id: callId };
  sink.send("response.output_item.added", { response_id: r.id, output_index: outputIndex, item });
  // In pieces, as the model streams them (the shortest arguments, "{}", still make two).
  const size = Math.max(1, Math.ceil(args.length / 3));
  for (let at = 0; at < args.length; at += size) {
    sink.send("response.function_call_arguments.delta", { ...ids, delta: args.slice(at, at + size) });
    await tick();
    if (r.ended) return false;
  }
  Object.assign(item, { arguments: args, status: "completed" });
  sink.send("response.function_call_arguments.done", { ...ids, name: call.name, arguments: args });
  sink.send("response.output_item.done", { response_id: r.id, output_index: outputIndex, item });
  return true;
}

/** One assistant message: audio with its transcript, or text only. */
async function playMessage(sink: ResponseSink, r: ActiveResponse, outputIndex: number, text: string, audio: boolean): Promise<boolean> {
  if (r.ended) return false;
  const item: RealtimeItem = { id: realtimeId("item"), object: "realtime.item", type: "message", status: "in_progress", role: "assistant", content: [] };
  r.output.push(item);
  sink.itemAdded(item);
  const ids = { response_id: r.id, item_id: item.id, output_index: outputIndex, content_index: 0 };
  sink.send("response.output_item.added", { response_id: r.id, output_index: outputIndex, item });
  sink.send("response.content_part.added", { ...ids, part: audio ? { type: "audio", transcript: "" } : { type: "text", text: "" } });
  // Word by word, each word sent just before the audio chunk where it would be heard.
  const words = text.split(/(?<=\s)(?=\S)/).filter(Boolean);
  const wordMs: number[] = [];
  words.reduce((chars, w) => (wordMs.push(chars * MS_PER_CHAR), chars + w.length), 0);
  let nextWord = 0;
  const textEvent = audio ? "response.audio_transcript.delta" : "response.text.delta";
  const sendWordsUntil = (ms: number) => {
    for (; nextWord < words.length && wordMs[nextWord] <= ms; nextWord++) sink.send(textEvent, { ...ids, delta: words[nextWord] });
  };
  if (audio) {
    const pcm = spokenAudio(text);
    for (let at = 0; at < pcm.length; at += CHUNK_BYTES) {
      sendWordsUntil((at / CHUNK_BYTES) * 50);
      sink.send("response.audio.delta", { ...ids, delta: pcm.subarray(at, at + CHUNK_BYTES).toString("base64") });
      await tick();
      if (r.ended) return false;
    }
  } else {
    for (const ms of wordMs) {
      sendWordsUntil(ms);
      await tick();
      if (r.ended) return false;
    }
  }
  sendWordsUntil(Infinity);
  const part = audio ? { type: "audio", transcript: text } : { type: "text", text };
  if (audio) {
    sink.send("response.audio.done", ids);
    sink.send("response.audio_transcript.done", { ...ids, transcript: text });
  } else sink.send("response.text.done", { ...ids, text });
  sink.send("response.content_part.done", { ...ids, part });
  Object.assign(item, { status: "completed", content: [part] });
  sink.send("response.output_item.done", { response_id: r.id, output_index: outputIndex, item });
  return true;
}

/** Token counts of `response.done`: made up but stable (4 characters of text a token, 50 ms of audio a token). */
export function responseUsage(output: RealtimeItem[], conversationItems: number): Record<string, unknown> {
  let textChars = 0;
  let audioMs = 0;
  for (const it of output) {
    textChars += it.arguments?.length ?? 0;
    for (const part of it.content ?? []) {
      if (typeof part.text === "string") textChars += part.text.length;
      if (part.type === "audio" && typeof part.transcript === "string") {
        textChars += part.transcript.length;
        audioMs += part.transcript.length * MS_PER_CHAR;
      }
    }
  }
  const outText = Math.ceil(textChars / 4);
  const outAudio = Math.ceil(audioMs / 50);
  const inText = 10 * conversationItems;
  return {
    total_tokens: inText + outText + outAudio,
    input_tokens: inText,
    output_tokens: outText + outAudio,
    input_token_details: { cached_tokens: 0, text_tokens: inText, audio_tokens: 0 },
    output_token_details: { text_tokens: outText, audio_tokens: outAudio },
  };
}
