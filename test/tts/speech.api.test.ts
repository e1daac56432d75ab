import assert from "node:assert/strict";
import http from "node:http";
import { FLACDecoder } from "@wasm-audio-decoders/flac";
import { MPEGDecoder } from "mpg123-decoder";
import { OggOpusDecoder } from "ogg-opus-decoder";
import OpenAI from "openai";
import type { SpeechCreateParams } from "openai/resources/audio/speech";
import { assertSpeechLike, loudness, pcmSamples, postJson, startTts, type RunningTts } from "./helpers";

const SENTENCE = "Good morning, Asha. It is eight o'clock, time for your blood pressure tablet and a glass of water.";
const STORY =
  "The garden looks lovely today. Ravi watered the roses before breakfast. " +
  "Lunch will be dal, rice and a little yogurt. Your daughter will call at four in the afternoon. " +
  "Remember to take a short walk after tea, and wear the blue cardigan if it gets cold.";

/** `stream` is this service's extension of the OpenAI body; the client sends extra fields as given. */
type StreamedSpeechParams = SpeechCreateParams & { stream: boolean; language?: string };

describe("tts speech API", function () {
  let tts: RunningTts;
  let client: OpenAI;

  before(async function () {
    tts = await startTts();
    client = new OpenAI({ apiKey: "unused", baseURL: `${tts.url}/v1`, maxRetries: 0 });
  });
  after(async () => tts.close());

  describe("with the official openai client", function () {
    it("returns an MP3 that decodes to speech of the right length", async function () {
      const response = await client.audio.speech.create({ model: "espeak", voice: "en-us-female", input: SENTENCE, response_format: "mp3" });
      assert.equal(response.headers.get("content-type"), "audio/mpeg");
      assert.equal(response.headers.get("content-disposition"), 'inline; filename="speech.mp3"');
      assert.equal(response.headers.get("x-tts-engine"), "espeak");
      const mp3 = new Uint8Array(await response.arrayBuffer());
      const decoder = new MPEGDecoder();
      await decoder.ready;
      const decoded = decoder.decode(mp3);
      decoder.free();
      assert.equal(decoded.sampleRate, 24000);
      assert.equal(decoded.errors.length, 0);
      assertSpeechLike(decoded.channelData[0], decoded.sampleRate, SENTENCE.length);
    });

    it("returns a WAV whose header parses and matches its data", async function () {
      const response = await client.audio.speech.create({ model: "espeak", voice: "en-gb-male", input: SENTENCE, response_format: "wav" });
      const wav = Buffer.from(await response.arrayBuffer());
      assert.equal(wav.toString("ascii", 0, 4), "RIFF");
      assert.equal(wav.readUInt32LE(4), wav.length - 8);
      assert.equal(wav.toString("ascii", 8, 16), "WAVEfmt ");
      assert.equal(wav.readUInt16LE(20), 1, "PCM");
      assert.equal(wav.readUInt16LE(22), 1, "mono");
      assert.equal(wav.readUInt32LE(24), 24000);
      assert.equal(wav.readUInt16LE(34), 16);
      assert.equal(wav.toString("ascii", 36, 40), "data");
      assert.equal(wav.readUInt32LE(40), wav.length - 44);
      assertSpeechLike(pcmSamples(wav.subarray(44)), 24000, SENTENCE.length);
    });

    it("streams raw PCM in several chunks as sentences are spoken", async function () {
      const started = Date.now();
      const params: StreamedSpeechParams = { model: "espeak", voice: "en-us-male", input: STORY, response_format: "pcm", stream: true };
      const response = await client.audio.speech.create(params);
      assert.equal(response.headers.get("x-sample-rate"), "24000");
      const chunks: Uint8Array[] = [];
      let firstAt = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (chunks.length === 0) firstAt = Date.now() - started;
        chunks.push(chunk);
      }
      const total = Date.now() - started;
      assert.ok(chunks.length >= 5, `expected many chunks, got ${chunks.length}`);
      assert.ok(firstAt < total, "first audio arrives before the end");
      assertSpeechLike(pcmSamples(Buffer.concat(chunks)), 24000, STORY.length);
    });

    it("speaks German, Hindi, Tamil and Bengali with their own voices", async function () {
      const texts: Record<string, string> = {
        de: "Guten Abend, es ist Zeit für Ihre Medizin. Bitte trinken Sie ein Glas Wasser.",
        hi: "नमस्ते दादी, दवा लेने का समय हो गया है। कृपया एक गिलास पानी पिएं।",
        ta: "வணக்கம் பாட்டி, மருந்து சாப்பிடும் நேரம் ஆகிவிட்டது.",
        bn: "নমস্কার দিদিমা, ওষুধ খাওয়ার সময় হয়েছে।",
      };
      for (const [language, input] of Object.entries(texts)) {
        const params: StreamedSpeechParams = { model: "espeak", voice: "", input, response_format: "pcm", stream: false, language };
        delete (params as { voice?: string }).voice;
        const response = await client.audio.speech.create(params);
        assert.equal(response.headers.get("x-tts-voice"), `${language}-female`);
        const level = loudness(pcmSamples(Buffer.from(await response.arrayBuffer())));
        assert.ok(level.rms > 0.02 && level.activeShare > 0.1, `${language} is audible`);
      }
    });

    it("reads a German senior's words in German with the household's voice, and a regional tag in its language", async function () {
      // careflow names its default voice and adds the senior's language: the gender stays, the language follows her.
      const named: StreamedSpeechParams = { model: "espeak", voice: "en-us-male", input: "Guten Abend", response_format: "pcm", stream: false, language: "de" };
      const german = await client.audio.speech.create(named);
      assert.equal(german.headers.get("x-tts-voice"), "de-male");
      const regional: StreamedSpeechParams = { model: "espeak", voice: "", input: "Grüß Gott", response_format: "pcm", stream: false, language: "de-AT" };
      delete (regional as { voice?: string }).voice;
      const austrian = await client.audio.speech.create(regional);
      assert.equal(austrian.headers.get("x-tts-voice"), "de-female");
      const level = loudness(pcmSamples(Buffer.from(await austrian.arrayBuffer())));
      assert.ok(level.rms > 0.02 && level.activeShare > 0.1, "German is audible");
    });

    it("reports bad input as a 422 API error", async function () {
      await assert.rejects(
        client.audio.speech.create({ model: "espeak", voice: "en-us-female", input: "hello", speed: 9 }),
        // The spec's `{"detail"}` body has no OpenAI `error` field, so the client shows the status only.
        (err: unknown) => err instanceof OpenAI.UnprocessableEntityError && err.status === 422,
      );
    });
  });

  describe("formats", function () {
    it("returns FLAC that decodes to the same speech", async function () {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { input: SENTENCE, response_format: "flac" });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "audio/flac");
      const decoder = new FLACDecoder();
      await decoder.ready;
      const decoded = await decoder.decodeFile(new Uint8Array(await response.arrayBuffer()));
      decoder.free();
      assert.equal(decoded.sampleRate, 24000);
      assertSpeechLike(decoded.channelData[0], decoded.sampleRate, SENTENCE.length);
    });

    it("returns Ogg Opus that decodes to the same speech", async function () {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { input: SENTENCE, response_format: "opus" });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-disposition"), 'inline; filename="speech.opus"');
      const ogg = new Uint8Array(await response.arrayBuffer());
      assert.equal(Buffer.from(ogg.subarray(0, 4)).toString("ascii"), "OggS");
      const decoder = new OggOpusDecoder();
      await decoder.ready;
      const decoded = await decoder.decodeFile(ogg);
      decoder.free();
      assert.equal(decoded.errors.length, 0);
      assertSpeechLike(decoded.channelData[0], decoded.sampleRate, SENTENCE.length);
    });

    it("returns headerless PCM for response_format pcm", async function () {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { input: SENTENCE, response_format: "pcm" });
      assert.equal(response.headers.get("content-type"), "audio/pcm");
      assert.equal(response.headers.get("content-disposition"), 'inline; filename="speech.pcm"');
      assertSpeechLike(pcmSamples(Buffer.from(await response.arrayBuffer())), 24000, SENTENCE.length);
    });
  });

  describe("over raw HTTP", function () {
    it("streams with the reference headers, chunked", async function () {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { input: SENTENCE, stream: true, response_format: "wav" });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-sample-rate"), "24000");
      assert.equal(response.headers.get("x-sample-width"), "16");
      assert.equal(response.headers.get("x-channels"), "1");
      assert.equal(response.headers.get("content-type"), "audio/pcm");
      assert.equal(response.headers.get("transfer-encoding"), "chunked");
      const pcm = Buffer.from(await response.arrayBuffer());
      assert.equal(pcm.length % 2, 0);
      assertSpeechLike(pcmSamples(pcm), 24000, SENTENCE.length);
    });

    it("length follows the text: twice the text, about twice the audio", async function () {
      const once = await postJson(`${tts.url}/v1/audio/speech`, { input: SENTENCE, response_format: "pcm" });
      const twice = await postJson(`${tts.url}/v1/audio/speech`, { input: `${SENTENCE} ${SENTENCE}`, response_format: "pcm" });
      const ratio = (await twice.arrayBuffer()).byteLength / (await once.arrayBuffer()).byteLength;
      assert.ok(ratio > 1.7 && ratio < 2.3, `ratio ${ratio.toFixed(2)}`);
    });

    it("honours speed across the whole 0.25-4 range", async function () {
      const lengths: Record<string, number> = {};
      for (const speed of [0.25, 1, 4]) {
        const response = await postJson(`${tts.url}/v1/audio/speech`, { input: SENTENCE, response_format: "pcm", speed });
        const pcm = Buffer.from(await response.arrayBuffer());
        lengths[speed] = pcm.length;
        assertSpeechLike(pcmSamples(pcm), 24000, SENTENCE.length, speed);
      }
      assert.ok(lengths[0.25] / lengths[1] > 3, `0.25x is ${(lengths[0.25] / lengths[1]).toFixed(2)} times as long`);
      assert.ok(lengths[1] / lengths[4] > 3, `4x is ${(lengths[1] / lengths[4]).toFixed(2)} times as short`);
    });

    it("falls back to the default engine for an unknown or unconfigured model, and says so", async function () {
      const unknown = await postJson(`${tts.url}/v1/audio/speech`, { model: "tts-1", voice: "alloy", input: "Hello.", response_format: "pcm" });
      assert.equal(unknown.status, 200);
      assert.equal(unknown.headers.get("x-tts-engine"), "espeak");
      assert.equal(unknown.headers.get("x-tts-fallback"), "unknown model 'tts-1'");
      assert.ok((await unknown.arrayBuffer()).byteLength > 10000);
      const svara = await postJson(`${tts.url}/v1/audio/speech`, { model: "svara", input: "नमस्ते", language: "hi", response_format: "pcm" });
      assert.equal(svara.headers.get("x-tts-fallback"), "svara not configured");
      assert.equal(svara.headers.get("x-tts-voice"), "hi-female");
    });

    const badBodies: [string, unknown, string][] = [
      ["empty input", { input: "   " }, "input"],
      ["missing input", { voice: "en-us-female" }, "input"],
      ["too long input", { input: "a".repeat(4097) }, "input"],
      ["punctuation only", { input: "..." }, "input"],
      ["speed too low", { input: "hi", speed: 0.1 }, "speed"],
      ["speed not a number", { input: "hi", speed: "fast" }, "speed"],
      ["unknown format", { input: "hi", response_format: "aac" }, "response_format"],
      ["unknown voice", { input: "hi", voice: "darth-vader" }, "voice"],
      ["unknown language", { input: "hi", language: "xx" }, "language"],
      ["stream not boolean", { input: "hi", stream: "yes" }, "stream"],
    ];
    for (const [name, body, field] of badBodies) {
      it(`rejects ${name} with 422 naming ${field}`, async function () {
        const response = await postJson(`${tts.url}/v1/audio/speech`, body);
        assert.equal(response.status, 422);
        const { detail } = (await response.json()) as { detail: string };
        assert.match(detail, new RegExp(`^${field}: `));
      });
    }

    it("accepts exactly 4096 characters", async function () {
      const input = "Tea is ready. ".repeat(293).slice(0, 4096);
      const response = await postJson(`${tts.url}/v1/audio/speech`, { input, response_format: "pcm", speed: 4 });
      assert.equal(response.status, 200);
      assert.ok((await response.arrayBuffer()).byteLength > 24000 * 2 * 30);
    });

    it("reads a JSON body whatever its Content-Type, as curl -d sends it", async function () {
      const response = await fetch(`${tts.url}/v1/audio/speech`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: JSON.stringify({ input: "Hello.", response_format: "wav" }),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "audio/wav");
    });

    it("stops synthesising when the client goes away, and keeps serving others", async function () {
      // Hang up after the first chunk: close the socket, as a player does when the user stops it.
      await new Promise<void>((resolve, reject) => {
        const req = http.request(`${tts.url}/v1/audio/speech`, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
          res.once("data", () => {
            req.destroy();
            resolve();
          });
        });
        req.on("error", (err) => ((err as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(err)));
        req.end(JSON.stringify({ input: STORY.repeat(10), stream: true }));
      });
      const started = Date.now();
      const next = await postJson(`${tts.url}/v1/audio/speech`, { input: "Still here.", response_format: "pcm" });
      assert.equal(next.status, 200);
      assert.ok((await next.arrayBuffer()).byteLength > 0);
      assert.ok(Date.now() - started < 2000, "the abandoned text is not spoken first");
      // The abandoned text had about 40 sentences (over a second of work): it must not go on.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const health = (await (await fetch(`${tts.url}/health`)).json()) as { engines: { espeak: { detail: string } } };
      assert.match(health.engines.espeak.detail, /^0 busy, 0 sentences queued/);
    });

    it("names the supported formats when one is unknown", async function () {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { input: "hi", response_format: "aac" });
      assert.match(((await response.json()) as { detail: string }).detail, /mp3, wav, opus, flac, pcm/);
    });

    it("lists models and reports health", async function () {
      const models = (await (await fetch(`${tts.url}/v1/models`)).json()) as { object: string; data: { id: string; object: string; owned_by: string }[] };
      assert.equal(models.object, "list");
      assert.deepEqual(models.data, [{ id: "espeak", object: "model", owned_by: "espeak-ng" }]);
      const health = (await (await fetch(`${tts.url}/health`)).json()) as Record<string, unknown>;
      assert.equal(health.status, "ok");
      assert.equal(health.gpu_available, false);
      assert.equal(health.default_engine, "espeak");
      assert.equal(health.voice_samples, 0);
      const engines = health.engines as Record<string, { configured: boolean; available: boolean }>;
      assert.equal(engines.espeak.available, true);
      assert.equal(engines.svara.configured, false);
    });
  });
});
