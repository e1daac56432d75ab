import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import multer from "multer";
import { openAiProblem, openAiSpeechRequest, type Refusal } from "./model-requests";

/**
 * A small OpenAI-style speech server (`POST /v1/audio/speech`), plus the spec's voice upload, for
 * testing the proxying engines. It answers `pcm` only (what the TTS service asks for) with a tone
 * whose length follows the text, written in timed chunks so streaming can be observed. A body
 * OpenAI would refuse (model-requests.ts) gets its 400 and is recorded in `refusals`.
 */
export interface FakeSpeechOptions {
  /** Required `Authorization: Bearer` key, if any. */
  apiKey?: string;
  /** Rate of the PCM it sends (24000 like OpenAI unless set). */
  sampleRate?: number;
  /** Send `X-Sample-Rate` with the audio. */
  announceRate?: boolean;
  /** Pause between 100 ms audio chunks. */
  chunkDelayMs?: number;
  /** Seconds of audio per input character. */
  secondsPerChar?: number;
  /** Only these voices are accepted (400 otherwise). */
  voices?: string[];
}

export interface RecordedSpeech {
  authorization?: string;
  body: Record<string, unknown>;
  /** Milliseconds since the request arrived at which each chunk was written. */
  chunkTimes: number[];
  audio: Buffer;
}

export interface RecordedUpload {
  fields: Record<string, string>;
  fileBytes: number;
}

export interface FakeSpeechServer {
  /** OpenAI-style base URL, ending in /v1. */
  baseUrl: string;
  speeches: RecordedSpeech[];
  uploads: RecordedUpload[];
  /** The speech requests refused with 400 because their body fails the API's schema. */
  refusals: Refusal[];
  /** Answer every following speech request with this status (undefined: behave). */
  failWith(status: number | undefined): void;
  /**
   * Write the last chunk of each following answer only once `gate` resolves: a client that
   * hears the first chunk before the gate opens proves the audio streamed through.
   */
  holdLastChunkUntil(gate: Promise<unknown> | undefined): void;
  close(): Promise<void>;
}

export async function startFakeSpeechServer(options: FakeSpeechOptions = {}): Promise<FakeSpeechServer> {
  const rate = options.sampleRate ?? 24000;
  const speeches: RecordedSpeech[] = [];
  const uploads: RecordedUpload[] = [];
  const refusals: Refusal[] = [];
  let failure: number | undefined;
  let lastChunkGate: Promise<unknown> | undefined;
  const app = express();
  app.use(express.json());

  const authorised = (req: express.Request) => !options.apiKey || req.get("authorization") === `Bearer ${options.apiKey}`;

  app.post("/v1/audio/speech", async (req, res) => {
    const body = req.body as Record<string, unknown>;
    if (!authorised(req)) return void res.status(401).json({ error: { message: "bad key" } });
    const parsed = openAiSpeechRequest.safeParse(body);
    if (!parsed.success) {
      const problem = openAiProblem(parsed.error, body);
      refusals.push({ path: req.path, body, ...problem });
      return void res.status(400).json({ error: { message: problem.message, type: "invalid_request_error", param: problem.param, code: problem.code } });
    }
    if (failure) return void res.status(failure).json({ error: { message: `failing with ${failure}` } });
    if (body.response_format !== "pcm") return void res.status(400).json({ error: { message: "fake only does pcm" } });
    if (options.voices && !options.voices.includes(String(body.voice))) {
      return void res.status(400).json({ error: { message: `voice '${String(body.voice)}' not found` } });
    }
    const audio = tone(String(body.input).length * (options.secondsPerChar ?? 0.05), rate);
    const record: RecordedSpeech = { authorization: req.get("authorization"), body, chunkTimes: [], audio };
    speeches.push(record);
    const started = Date.now();
    res.status(200).setHeader("content-type", "audio/pcm");
    if (options.announceRate) res.setHeader("x-sample-rate", String(rate));
    res.flushHeaders();
    const chunkBytes = (rate / 10) * 2;
    for (let offset = 0; offset < audio.length; offset += chunkBytes) {
      if (offset > 0 && options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
      if (offset + chunkBytes >= audio.length && offset > 0) await lastChunkGate;
      record.chunkTimes.push(Date.now() - started);
      res.write(audio.subarray(offset, offset + chunkBytes));
    }
    res.end();
  });

  app.post("/api/v1/voices/upload", multer({ storage: multer.memoryStorage() }).single("file"), (req, res) => {
    if (!authorised(req)) return void res.status(401).json({ detail: "bad key" });
    const fields = req.body as Record<string, string>;
    if (uploads.some((u) => u.fields.voice_id === fields.voice_id)) {
      return void res.status(409).json({ detail: "exists" });
    }
    uploads.push({ fields: { ...fields }, fileBytes: req.file?.size ?? 0 });
    res.json({ voice_id: fields.voice_id, name: fields.name, language: fields.language, status: "uploaded" });
  });

  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    speeches,
    uploads,
    refusals,
    holdLastChunkUntil(gate) {
      lastChunkGate = gate;
    },
    failWith(status) {
      failure = status;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A 330 Hz tone at -10 dBFS: clearly not silence, and easy to recognise after resampling. */
export function tone(seconds: number, rate: number): Buffer {
  const samples = Math.round(seconds * rate);
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 330 * i) / rate)), i * 2);
  return out;
}
