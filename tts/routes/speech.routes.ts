import express, { Router, type Response } from "express";
import { CONTENT_TYPES, createEncoder } from "../audio/formats";
import { PCM_CHANNELS, PCM_SAMPLE_RATE, PCM_SAMPLE_WIDTH_BITS } from "../audio/pcm";
import { parseSpeechRequest } from "../speech/speech-request";
import type { OpenedSpeech, SpeechService } from "../speech/speech-service";

/** `POST /v1/audio/speech`: streamed raw PCM, or a whole file in the requested format. */
export function speechRoutes(speech: SpeechService): Router {
  const router = Router();
  // The body is JSON whatever the Content-Type says: `curl -d '{...}'` sends form encoding.
  const json = express.json({ type: () => true, limit: "256kb" });
  router.post("/v1/audio/speech", json, async (req, res, next) => {
    // Stops the engine (and any backend request) when the client goes away mid-speech.
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const request = parseSpeechRequest(req.body);
      const opened = await speech.open(request, abort.signal);
      setEngineHeaders(res, opened);
      if (request.stream) await streamPcm(res, opened);
      else await sendFile(res, opened, request.response_format);
    } catch (err) {
      if (abort.signal.aborted) return;
      next(err);
    }
  });
  return router;
}

function setEngineHeaders(res: Response, opened: OpenedSpeech): void {
  res.setHeader("X-TTS-Engine", opened.engine);
  res.setHeader("X-TTS-Voice", headerSafe(opened.voice.id));
  if (opened.fallback) res.setHeader("X-TTS-Fallback", headerSafe(opened.fallback));
}

/** Each chunk is written the moment the engine has it; a slow reader slows the engine down. */
async function streamPcm(res: Response, opened: OpenedSpeech): Promise<void> {
  res.status(200);
  res.setHeader("Content-Type", CONTENT_TYPES.pcm);
  res.setHeader("Content-Disposition", 'inline; filename="speech.pcm"');
  res.setHeader("X-Sample-Rate", String(PCM_SAMPLE_RATE));
  res.setHeader("X-Sample-Width", String(PCM_SAMPLE_WIDTH_BITS));
  res.setHeader("X-Channels", String(PCM_CHANNELS));
  res.setHeader("Cache-Control", "no-store");
  res.flushHeaders();
  for await (const chunk of opened.audio) {
    // Leaving the loop ends the engine's generator, so a vanished client costs one sentence at most.
    if (res.destroyed) return;
    if (!res.write(chunk)) await drained(res);
  }
  res.end();
}

async function sendFile(res: Response, opened: OpenedSpeech, format: keyof typeof CONTENT_TYPES): Promise<void> {
  const encoder = await createEncoder(format);
  for await (const chunk of opened.audio) encoder.push(chunk);
  const file = encoder.finish();
  res.status(200);
  res.setHeader("Content-Type", CONTENT_TYPES[format]);
  res.setHeader("Content-Disposition", `inline; filename="speech.${format}"`);
  res.setHeader("Content-Length", String(file.length));
  res.end(file);
}

function drained(res: Response): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Header values must be printable ASCII on one line. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 400);
}
