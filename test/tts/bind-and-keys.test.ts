import assert from "node:assert/strict";
import crypto from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../tts/config";
import { isLoopbackAddress, keyMatches, reachableFromNetwork } from "../../tts/routes/auth";
import { postJson, referenceWav, startTts, type RunningTts } from "./helpers";

async function detail(response: Response): Promise<string> {
  return ((await response.json()) as { detail: string }).detail;
}

function upload(url: string, voiceId: string, headers: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  form.set("voice_id", voiceId);
  form.set("file", new Blob([new Uint8Array(referenceWav(12))], { type: "audio/wav" }), "sample.wav");
  return fetch(`${url}/api/v1/voices/upload`, { method: "POST", body: form, headers });
}

/** Byte lengths of the buffers each `crypto.timingSafeEqual` call compared while `run` ran. */
async function timingSafeEqualCalls(run: () => Promise<unknown>): Promise<[number, number][]> {
  const original = crypto.timingSafeEqual;
  const calls: [number, number][] = [];
  crypto.timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    calls.push([a.byteLength, b.byteLength]);
    return original(a, b);
  };
  try {
    await run();
  } finally {
    crypto.timingSafeEqual = original;
  }
  return calls;
}

const SPEECH = { input: "Lunch is ready.", response_format: "pcm" };

describe("tts bind address", function () {
  it("listens on 127.0.0.1 unless TTS_HOST says otherwise", async function () {
    assert.equal(loadConfig({}).host, "127.0.0.1");
    assert.equal(loadConfig({ TTS_HOST: " 0.0.0.0 " }).host, "0.0.0.0");
    const warnings: string[] = [];
    const tts = await startTts({}, undefined, { logWarning: (message) => warnings.push(message) });
    try {
      assert.equal((tts.app.server.address() as AddressInfo).address, "127.0.0.1");
      assert.deepEqual(warnings, []);
      assert.equal((await postJson(`${tts.url}/v1/audio/speech`, SPEECH)).status, 200, "open to this machine without a key");
    } finally {
      await tts.close();
    }
  });

  it("tells loopback addresses from network ones", function () {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "[::1]", "localhost", "LOCALHOST"]) {
      assert.equal(isLoopbackAddress(address), true, address);
    }
    for (const address of ["0.0.0.0", "::", "192.168.1.20", "10.0.0.5", "::ffff:192.168.1.2", "fe80::1", "128.0.0.1", "127.example.org", "gpu-box"]) {
      assert.equal(isLoopbackAddress(address), false, address);
    }
    assert.equal(reachableFromNetwork({ address: "0.0.0.0", family: "IPv4", port: 8090 }), true);
    assert.equal(reachableFromNetwork({ address: "::1", family: "IPv6", port: 8090 }), false);
    assert.equal(reachableFromNetwork("/run/tts.sock"), false, "a Unix socket is local");
    assert.equal(reachableFromNetwork(null), true, "not knowing counts as reachable");
  });
});

describe("tts on a network address without TTS_API_KEY", function () {
  let dataDir: string;
  let tts: RunningTts;
  const warnings: string[] = [];

  before(async function () {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "tts-test-"));
    // A voice stored while the service listened on this machine only, for the delete below.
    const local = await startTts({}, dataDir);
    assert.equal((await upload(local.url, "amma")).status, 201);
    await local.close();
    tts = await startTts({ TTS_HOST: "0.0.0.0" }, dataDir, { logWarning: (message) => warnings.push(message) });
  });
  after(async () => {
    await tts.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("listens on every interface and warns once at start-up", function () {
    assert.equal((tts.app.server.address() as AddressInfo).address, "0.0.0.0");
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0],
      /^TTS_API_KEY is not set and the service listens on 0\.0\.0\.0 port \d+, reachable from the network: speech and voice upload and delete are refused/,
    );
  });

  it("refuses speech with 403 saying TTS_API_KEY must be set", async function () {
    const response = await postJson(`${tts.url}/v1/audio/speech`, SPEECH);
    assert.equal(response.status, 403);
    assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
    assert.match(await detail(response), /^TTS_API_KEY must be set: this service listens on a network address without a key/);
  });

  it("refuses voice upload and delete, and changes nothing on disk", async function () {
    const uploaded = await upload(tts.url, "stranger");
    assert.equal(uploaded.status, 403);
    assert.match(await detail(uploaded), /^TTS_API_KEY must be set/);
    const deleted = await fetch(`${tts.url}/api/v1/voices/amma`, { method: "DELETE" });
    assert.equal(deleted.status, 403);
    assert.match(await detail(deleted), /^TTS_API_KEY must be set/);
    assert.deepEqual(readdirSync(path.join(dataDir, "voices")), ["amma"]);
    assert.ok(existsSync(path.join(dataDir, "voices", "amma", "sample.wav")));
  });

  it("still answers health, models and the voice list", async function () {
    assert.equal((await fetch(`${tts.url}/health`)).status, 200);
    assert.equal((await fetch(`${tts.url}/v1/models`)).status, 200);
    const voices = (await (await fetch(`${tts.url}/api/v1/voices`)).json()) as { voices: { id: string }[] };
    assert.ok(voices.voices.some((v) => v.id === "amma"));
  });
});

describe("tts on a network address with TTS_API_KEY", function () {
  let tts: RunningTts;
  const warnings: string[] = [];
  before(async () => (tts = await startTts({ TTS_HOST: "0.0.0.0", TTS_API_KEY: "house-key" }, undefined, { logWarning: (m) => warnings.push(m) })));
  after(async () => tts.close());

  it("serves speech and voice changes to the key, without a warning", async function () {
    assert.deepEqual(warnings, []);
    assert.equal((await postJson(`${tts.url}/v1/audio/speech`, SPEECH)).status, 401);
    assert.equal((await postJson(`${tts.url}/v1/audio/speech`, SPEECH, { authorization: "Bearer house-key" })).status, 200);
    assert.equal((await upload(tts.url, "amma", { "x-api-key": "house-key" })).status, 201);
    assert.equal((await fetch(`${tts.url}/api/v1/voices/amma`, { method: "DELETE", headers: { "x-api-key": "house-key" } })).status, 200);
  });

  it("compares a key of any length in constant time, on digests of equal length", async function () {
    for (const key of ["x", "house-ke", "house-key-and-more", "a".repeat(4096)]) {
      let status = 0;
      const calls = await timingSafeEqualCalls(async () => {
        status = (await fetch(`${tts.url}/v1/models`, { headers: { "x-api-key": key } })).status;
      });
      assert.equal(status, 401, key);
      assert.deepEqual(calls, [[32, 32]], `a ${key.length}-character key reaches the constant-time compare`);
    }
  });
});

describe("tts key comparison", function () {
  it("accepts the key and refuses any other, of whatever length", function () {
    assert.equal(keyMatches("house-key", "house-key"), true);
    assert.equal(keyMatches("ऑडियो-कुंजी", "ऑडियो-कुंजी"), true);
    for (const wrong of ["", "h", "house-ke", "house-kez", "House-key", "house-key ", "house-keyhouse-key", "x".repeat(10000)]) {
      assert.equal(keyMatches(wrong, "house-key"), false, JSON.stringify(wrong));
    }
  });

  it("hashes both keys first: every comparison is of two 32-byte digests", async function () {
    const calls = await timingSafeEqualCalls(async () => {
      keyMatches("short", "a-much-longer-house-key");
      keyMatches("", "house-key");
      keyMatches("house-key", "house-key");
    });
    assert.deepEqual(calls, [
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });
});
