import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { MPEGDecoder } from "mpg123-decoder";
import OpenAI from "openai";
import type { SpeechCreateParams } from "openai/resources/audio/speech";
import { startFakeSpeechServer, tone, type FakeSpeechServer } from "../fakes/openai-speech-server";
import { loudness, pcmSamples, postJson, startTts, type RunningTts } from "./helpers";

const TEXT = "Please remember the doctor visit tomorrow at ten.";

describe("tts remote engines", function () {
  describe("remote_tts proxying an OpenAI-style server", function () {
    let fake: FakeSpeechServer;
    let tts: RunningTts;

    before(async function () {
      fake = await startFakeSpeechServer({ apiKey: "backend-key", chunkDelayMs: 60 });
      tts = await startTts({
        TTS_REMOTE_TTS_URL: fake.baseUrl,
        TTS_REMOTE_TTS_API_KEY: "backend-key",
        TTS_REMOTE_TTS_MODEL: "gpt-4o-mini-tts",
      });
    });
    after(async () => {
      await tts.close();
      await fake.close();
    });
    beforeEach(() => fake.failWith(undefined));

    it("forwards key, model and voice, and streams what the backend streams", async function () {
      const client = new OpenAI({ apiKey: "unused", baseURL: `${tts.url}/v1`, maxRetries: 0 });
      const params: SpeechCreateParams & { stream: boolean } = { model: "remote_tts", voice: "alloy", input: TEXT, response_format: "pcm", stream: true };
      // The backend holds its last chunk until the client has heard the first: a proxy that
      // waited for the whole answer would never pass the first one on, and this would time out.
      let heardFirst!: () => void;
      fake.holdLastChunkUntil(new Promise<void>((resolve) => (heardFirst = resolve)));
      const response = await client.audio.speech.create(params);
      assert.equal(response.headers.get("x-tts-engine"), "remote_tts");
      assert.equal(response.headers.get("x-tts-fallback"), null);
      assert.equal(response.headers.get("x-sample-rate"), "24000");
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        chunks.push(Buffer.from(chunk));
        heardFirst();
      }
      fake.holdLastChunkUntil(undefined);
      const sent = fake.speeches.at(-1)!;
      assert.equal(sent.authorization, "Bearer backend-key");
      assert.equal(sent.body.model, "gpt-4o-mini-tts");
      assert.equal(sent.body.voice, "alloy");
      assert.equal(sent.body.response_format, "pcm");
      assert.equal(sent.body.stream, true);
      assert.ok(Buffer.concat(chunks).equals(sent.audio), "audio passes through unchanged");
      assert.ok(sent.chunkTimes.length > 2, "the backend answered in several chunks");
    });

    it("encodes the proxied audio when a file format is asked for", async function () {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { model: "remote_tts", voice: "nova", input: TEXT, response_format: "mp3" });
      assert.equal(response.status, 200);
      const decoder = new MPEGDecoder();
      await decoder.ready;
      const decoded = decoder.decode(new Uint8Array(await response.arrayBuffer()));
      decoder.free();
      const expected = TEXT.length * 0.05;
      const seconds = decoded.samplesDecoded / decoded.sampleRate;
      assert.ok(Math.abs(seconds - expected) < 0.15, `${seconds.toFixed(2)} s, expected ${expected.toFixed(2)} s`);
      assert.ok(loudness(decoded.channelData[0]).rms > 0.1);
    });

    it("falls back to espeak when the backend fails, and says why", async function () {
      fake.failWith(503);
      const response = await postJson(`${tts.url}/v1/audio/speech`, { model: "remote_tts", voice: "alloy", input: TEXT, stream: true });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-tts-engine"), "espeak");
      assert.match(response.headers.get("x-tts-fallback") ?? "", /^remote_tts unavailable: HTTP 503/);
      assert.ok(loudness(pcmSamples(Buffer.from(await response.arrayBuffer()))).rms > 0.02);
    });

    it("passes a backend refusal back as 422 instead of hiding it", async function () {
      fake.failWith(400);
      const response = await postJson(`${tts.url}/v1/audio/speech`, { model: "remote_tts", voice: "alloy", input: TEXT });
      assert.equal(response.status, 422);
      assert.match(((await response.json()) as { detail: string }).detail, /^remote_tts: failing with 400/);
    });

    it("lists remote_tts as a model", async function () {
      const models = (await (await fetch(`${tts.url}/v1/models`)).json()) as { data: { id: string; owned_by: string }[] };
      assert.deepEqual(
        models.data.map((m) => m.id),
        ["espeak", "remote_tts"],
      );
      assert.equal(models.data[1].owned_by, new URL(fake.baseUrl).host);
    });
  });

  describe("neural engine names pointing at servers", function () {
    let streaming: FakeSpeechServer;
    let batch: FakeSpeechServer;
    let tts: RunningTts;

    before(async function () {
      streaming = await startFakeSpeechServer({ sampleRate: 16000, announceRate: true, voices: ["priya", "arjun"] });
      batch = await startFakeSpeechServer({});
      tts = await startTts({
        TTS_DEFAULT_MODEL: "svara",
        TTS_SVARA_URL: streaming.baseUrl,
        TTS_SVARA_VOICES: "priya:hi, arjun:hi",
        TTS_SEAMLESS_URL: batch.baseUrl,
      });
    });
    after(async () => {
      await tts.close();
      await streaming.close();
      await batch.close();
    });

    it("uses the configured default engine, its default voice, and resamples 16 kHz to 24 kHz", async function () {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { input: "दवा का समय हो गया है, कृपया पानी पिएं।", language: "hi", stream: true });
      assert.equal(response.headers.get("x-tts-engine"), "svara");
      assert.equal(response.headers.get("x-tts-voice"), "priya");
      const sent = streaming.speeches.at(-1)!;
      assert.equal(sent.body.model, "svara");
      assert.equal(sent.body.language, "hi");
      const pcm = pcmSamples(Buffer.from(await response.arrayBuffer()));
      const expectedSamples = (sent.audio.length / 2) * 1.5;
      assert.ok(Math.abs(pcm.length - expectedSamples) <= 2, `${pcm.length} samples, expected ${expectedSamples}`);
      // The 330 Hz tone survives: count zero crossings over one second in the middle.
      assert.ok(pcm.length > 36000);
      const middle = pcm.subarray(6000, 30000);
      let crossings = 0;
      for (let i = 1; i < middle.length; i++) if (middle[i - 1] < 0 !== middle[i] < 0) crossings++;
      assert.ok(Math.abs(crossings / 2 - 330) < 3, `${crossings / 2} Hz`);
    });

    it("checks voices against the configured list and lists them", async function () {
      const bad = await postJson(`${tts.url}/v1/audio/speech`, { model: "svara", voice: "nobody", input: TEXT });
      assert.equal(bad.status, 422);
      assert.match(((await bad.json()) as { detail: string }).detail, /^voice: unknown voice 'nobody' for engine svara/);
      const { voices } = (await (await fetch(`${tts.url}/api/v1/voices`)).json()) as { voices: { id: string; engine: string; language: string }[] };
      assert.deepEqual(
        voices.filter((v) => v.engine === "svara").map((v) => `${v.id}:${v.language}`),
        ["priya:hi", "arjun:hi"],
      );
    });

    it("synthesises first and then chunks for an engine without native streaming", async function () {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { model: "seamless", voice: "any", input: TEXT, stream: true });
      assert.equal(response.headers.get("x-tts-engine"), "seamless");
      const sent = batch.speeches.at(-1)!;
      assert.equal(sent.body.stream, undefined, "a non-streaming backend is not asked to stream");
      const reader = response.body!.getReader();
      const sizes: number[] = [];
      for (let read = await reader.read(); !read.done; read = await reader.read()) sizes.push(read.value.length);
      assert.equal(
        sizes.reduce((a, b) => a + b, 0),
        sent.audio.length,
      );
      assert.ok(sizes.length >= 2, `${sizes.length} chunks`);
    });

    it("falls back from an unreachable default engine to espeak", async function () {
      const closed = await unusedPort();
      const lonely = await startTts({ TTS_DEFAULT_MODEL: "svara", TTS_SVARA_URL: `http://127.0.0.1:${closed}/v1` });
      try {
        const response = await postJson(`${lonely.url}/v1/audio/speech`, { input: TEXT, voice: "priya", language: "hi", response_format: "pcm" });
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("x-tts-engine"), "espeak");
        assert.equal(response.headers.get("x-tts-voice"), "hi-female");
        assert.match(response.headers.get("x-tts-fallback") ?? "", /^svara unavailable: ECONNREFUSED/);
        assert.ok((await response.arrayBuffer()).byteLength > 0, "espeak's speech"); // read to its end: an unread body holds its socket
      } finally {
        await lonely.close();
      }
    });
  });
});

describe("tts remote engine timeout", function () {
  it("falls back when a backend accepts the request but never answers", async function () {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    const tts = await startTts({ TTS_PARLER_URL: `http://127.0.0.1:${port}/v1`, TTS_REMOTE_TIMEOUT_MS: "300" });
    try {
      const started = Date.now();
      const response = await postJson(`${tts.url}/v1/audio/speech`, { model: "parler", input: TEXT, response_format: "pcm" });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-tts-fallback"), "parler unavailable: no answer within 300 ms");
      assert.ok((await response.arrayBuffer()).byteLength > 0, "espeak's speech"); // read to its end: an unread body holds its socket
      // Not the default wait of 10 s (a loaded machine may add some seconds to the espeak part).
      assert.ok(Date.now() - started < 8000, `answered after ${Date.now() - started} ms`);
      const health = (await (await fetch(`${tts.url}/health`)).json()) as { engines: Record<string, { available: boolean; detail?: string }> };
      assert.equal(health.engines.parler.available, false);
      assert.equal(health.engines.parler.detail, "last error: no answer within 300 ms");
    } finally {
      await tts.close();
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

async function unusedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// Keeps the tone helper honest: the fake's audio is what the assertions above assume.
describe("fake speech server tone", function () {
  it("is a loud 330 Hz tone of the asked length", function () {
    const samples = pcmSamples(tone(1, 24000));
    assert.equal(samples.length, 24000);
    assert.ok(loudness(samples).rms > 0.2);
  });
});
