import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { startFakeSpeechServer, type FakeSpeechServer } from "../fakes/openai-speech-server";
import { postJson, referenceWav, startTts, type RunningTts } from "./helpers";

interface VoiceItem {
  id: string;
  name: string;
  engine: string;
  language: string;
  supports_cloning: boolean;
  sample_rate: number;
  is_default: boolean;
}

function uploadForm(fields: Record<string, string>, file?: Buffer, filename = "sample.wav"): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  if (file) form.set("file", new Blob([new Uint8Array(file)], { type: "audio/wav" }), filename);
  return form;
}

async function upload(url: string, fields: Record<string, string>, file?: Buffer, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/api/v1/voices/upload`, { method: "POST", body: uploadForm(fields, file), headers });
}

async function detail(response: Response): Promise<string> {
  return ((await response.json()) as { detail: string }).detail;
}

describe("tts voices", function () {
  let tts: RunningTts;
  before(async () => (tts = await startTts()));
  after(async () => tts.close());

  it("lists built-in voices per engine and language with the spec fields", async function () {
    const body = (await (await fetch(`${tts.url}/api/v1/voices`)).json()) as { voices: VoiceItem[]; total: number };
    assert.equal(body.total, body.voices.length);
    const hindi = body.voices.find((v) => v.id === "hi-female");
    assert.deepEqual(hindi, {
      id: "hi-female",
      name: "Hindi (female)",
      engine: "espeak",
      language: "hi",
      supports_cloning: false,
      sample_rate: 24000,
      is_default: true,
    });
    for (const language of ["en-us", "en-gb", "hi", "bn", "ta", "te", "mr", "gu", "kn", "ml", "pa", "or", "as", "ur"]) {
      assert.ok(
        body.voices.some((v) => v.language === language && v.engine === "espeak"),
        `a voice for ${language}`,
      );
    }
  });

  it("accepts a 15 s WAV, stores it and lists it as a cloning voice", async function () {
    const sample = referenceWav(15);
    const response = await upload(tts.url, { voice_id: "grandpa-ravi", name: "Grandpa Ravi", language: "hi", description: "Reads the news" }, sample);
    assert.equal(response.status, 201);
    assert.deepEqual(await response.json(), { voice_id: "grandpa-ravi", name: "Grandpa Ravi", language: "hi", status: "uploaded" });
    const stored = path.join(tts.dataDir, "voices", "grandpa-ravi", "sample.wav");
    assert.ok(readFileSync(stored).equals(sample), "the sample is kept as uploaded");
    const { voices } = (await (await fetch(`${tts.url}/api/v1/voices`)).json()) as { voices: VoiceItem[] };
    assert.deepEqual(
      voices.find((v) => v.id === "grandpa-ravi"),
      {
        id: "grandpa-ravi",
        name: "Grandpa Ravi",
        engine: "cloning",
        language: "hi",
        supports_cloning: true,
        sample_rate: 16000,
        is_default: false,
      },
    );
    const health = (await (await fetch(`${tts.url}/health`)).json()) as { voice_samples: number };
    assert.equal(health.voice_samples, 1);
  });

  it("refuses to speak with a cloned voice when no cloning engine is configured", async function () {
    const response = await postJson(`${tts.url}/v1/audio/speech`, { input: "Hello", voice: "grandpa-ravi" });
    assert.equal(response.status, 400);
    assert.match(await detail(response), /^voice: 'grandpa-ravi' is a cloned voice and no cloning engine is configured/);
  });

  const rejected: [string, Record<string, string>, Buffer | undefined, number, RegExp][] = [
    ["a 5 s sample", { voice_id: "short" }, referenceWav(5), 422, /^file: reference sample is 5\.0 s long; it must be 10-30 s/],
    ["a 31 s sample", { voice_id: "long" }, referenceWav(31, 8000), 422, /^file: reference sample is 31\.0 s long/],
    [
      "a file that is not WAV",
      { voice_id: "mp3ish" },
      Buffer.from("ID3\u0004 not really audio".repeat(100)),
      422,
      /^file: reference sample must be a WAV file/,
    ],
    ["a silent sample", { voice_id: "quiet" }, referenceWav(12, 16000, 0), 422, /^file: reference sample is silent/],
    ["no file", { voice_id: "nofile" }, undefined, 422, /^file: required/],
    ["no voice_id", { name: "x" }, referenceWav(12), 422, /^voice_id: required/],
    ["a voice_id that is a path", { voice_id: "../etc" }, referenceWav(12), 422, /^voice_id: /],
    ["a duplicate voice_id", { voice_id: "grandpa-ravi" }, referenceWav(12), 409, /^voice_id: 'grandpa-ravi' already exists/],
    ["a built-in voice id", { voice_id: "hi-female" }, referenceWav(12), 409, /^voice_id: 'hi-female' already exists/],
  ];
  for (const [name, fields, file, status, pattern] of rejected) {
    it(`rejects ${name} with ${status}`, async function () {
      const response = await upload(tts.url, fields, file);
      assert.equal(response.status, status);
      assert.match(await detail(response), pattern);
    });
  }

  const part = (name: string, value: string, filename?: string) =>
    `--b0undary\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ""}\r\n\r\n${value}\r\n`;
  const multipart = { "content-type": "multipart/form-data; boundary=b0undary" };
  const malformed: [string, Record<string, string>, string | undefined, RegExp][] = [
    ["an empty multipart body", multipart, "", /^voice_id: required; the form has no fields: send voice_id and file/],
    ["a form with only its closing boundary", multipart, "--b0undary--\r\n", /^voice_id: required; the form has no fields/],
    ["a form cut off in its first part", multipart, part("voice_id", "cut").slice(0, 50), /^voice_id: required; the form has no fields/],
    [
      "a form cut off after a field",
      multipart,
      part("voice_id", "cut") + "--b0undary\r\nContent-Disp",
      /^body: not a readable multipart form \(Unexpected end of form\)/,
    ],
    ["a part header that never ends", multipart, `--b0undary\r\n${"X".repeat(20000)}`, /^body: not a readable multipart form \(Malformed part header\)/],
    [
      "multipart without a boundary",
      { "content-type": "multipart/form-data" },
      part("voice_id", "a"),
      /^body: not a readable multipart form \(Multipart: Boundary not found\)/,
    ],
    [
      "a JSON body",
      { "content-type": "application/json" },
      '{"voice_id":"json"}',
      /^body: send multipart\/form-data with the fields voice_id and file \(got 'application\/json'\)/,
    ],
    ["a urlencoded body", { "content-type": "application/x-www-form-urlencoded" }, "voice_id=form", /^body: send multipart\/form-data/],
    ["no body and no Content-Type", {}, undefined, /^body: send multipart\/form-data with the fields voice_id and file \(got no Content-Type\)/],
    ["a form without its file part", multipart, part("voice_id", "nofile") + "--b0undary--\r\n", /^file: required/],
    ["a file under another name", multipart, part("voice_id", "other") + part("audio", "RIFF", "a.wav") + "--b0undary--\r\n", /^audio: Unexpected file field/],
  ];
  for (const [name, headers, body, pattern] of malformed) {
    it(`rejects ${name} with 422 and a detail, not 500`, async function () {
      const response = await fetch(`${tts.url}/api/v1/voices/upload`, { method: "POST", headers, body });
      assert.equal(response.status, 422);
      assert.match(await detail(response), pattern);
    });
  }

  it("keeps uploaded voices across a restart", async function () {
    const again = await startTts({}, tts.dataDir);
    try {
      const { voices } = (await (await fetch(`${again.url}/api/v1/voices`)).json()) as { voices: VoiceItem[] };
      assert.ok(voices.some((v) => v.id === "grandpa-ravi"));
    } finally {
      await again.close();
    }
  });

  it("deletes a custom voice, and refuses built-in and unknown ones", async function () {
    const builtIn = await fetch(`${tts.url}/api/v1/voices/hi-female`, { method: "DELETE" });
    assert.equal(builtIn.status, 409);
    const gone = await fetch(`${tts.url}/api/v1/voices/grandpa-ravi`, { method: "DELETE" });
    assert.equal(gone.status, 200);
    assert.deepEqual(await gone.json(), { voice_id: "grandpa-ravi", status: "deleted" });
    assert.equal(existsSync(path.join(tts.dataDir, "voices", "grandpa-ravi")), false);
    const again = await fetch(`${tts.url}/api/v1/voices/grandpa-ravi`, { method: "DELETE" });
    assert.equal(again.status, 404);
    assert.match(await detail(again), /not found/);
  });
});

describe("tts cloning through a configured backend", function () {
  let fake: FakeSpeechServer;
  let tts: RunningTts;
  before(async function () {
    fake = await startFakeSpeechServer({ apiKey: "clone-key" });
    tts = await startTts({ TTS_CLONING_URL: fake.baseUrl, TTS_CLONING_API_KEY: "clone-key" });
  });
  after(async () => {
    await tts.close();
    await fake.close();
  });

  it("hands the sample to the cloning server once, then speaks with the voice", async function () {
    const sample = referenceWav(20);
    assert.equal((await upload(tts.url, { voice_id: "amma", name: "Amma", language: "ta", description: "Mother" }, sample)).status, 201);
    for (let i = 0; i < 2; i++) {
      const response = await postJson(`${tts.url}/v1/audio/speech`, { input: "Time for your walk.", voice: "amma", response_format: "pcm" });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-tts-engine"), "cloning");
      assert.ok((await response.arrayBuffer()).byteLength > 0);
    }
    assert.equal(fake.uploads.length, 1);
    assert.deepEqual(fake.uploads[0].fields, { voice_id: "amma", name: "Amma", language: "ta", description: "Mother" });
    assert.equal(fake.uploads[0].fileBytes, sample.length);
    assert.deepEqual(
      fake.speeches.map((s) => [s.body.model, s.body.voice, s.body.language]),
      [
        ["cloning", "amma", "ta"],
        ["cloning", "amma", "ta"],
      ],
    );
  });
});

describe("tts authentication", function () {
  let tts: RunningTts;
  before(async () => (tts = await startTts({ TTS_API_KEY: "house-key" })));
  after(async () => tts.close());

  it("needs the key everywhere but /health, as Bearer or X-API-Key", async function () {
    assert.equal((await fetch(`${tts.url}/health`)).status, 200);
    const missing = await fetch(`${tts.url}/v1/models`);
    assert.equal(missing.status, 401);
    assert.equal(await detail(missing), "authentication required or invalid key");
    assert.equal((await fetch(`${tts.url}/v1/models`, { headers: { authorization: "Bearer wrong" } })).status, 401);
    assert.equal((await fetch(`${tts.url}/v1/models`, { headers: { authorization: "Bearer house-key" } })).status, 200);
    assert.equal((await fetch(`${tts.url}/api/v1/voices`, { headers: { "x-api-key": "house-key" } })).status, 200);
    assert.equal((await upload(tts.url, { voice_id: "x" }, referenceWav(12))).status, 401);
  });
});
