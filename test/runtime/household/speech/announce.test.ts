/**
 * Announcements on `/ws` against a fake TTS service that streams PCM in odd-sized chunks:
 * the frames in order, whole samples in every binary frame, two announcements never
 * interleaved, the file mode's signed clip (also chosen by a rule's notification step), and
 * the reasons when nobody listens or the TTS service is away.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import { announce } from "../../../../runtime/household/speech/announce";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

type Got = { binary: true; data: Buffer } | { binary: false; frame: Record<string, any> };

/** Answers every speech request with `bytes` of PCM in chunks of 3, 5, 7… bytes, or an MP3 body. */
function fakeTts(bytes: Buffer): Promise<{ url: string; requests: Array<Record<string, unknown>>; close(): Promise<void> }> {
  const requests: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      const json = JSON.parse(body) as Record<string, unknown>;
      requests.push(json);
      if (!json.stream) {
        res.writeHead(200, { "content-type": "audio/mpeg" });
        res.end(Buffer.from("ID3-fake-mp3-bytes"));
        return;
      }
      res.writeHead(200, { "content-type": "application/octet-stream", "x-sample-rate": "24000", "x-sample-width": "16", "x-channels": "1" });
      let at = 0;
      for (let n = 3; at < bytes.length; n += 2) {
        res.write(bytes.subarray(at, at + n));
        at += n;
        await new Promise((r) => setTimeout(r, 2));
      }
      res.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

describe("announcements in the web app (/ws)", function () {
  this.timeout(20000);
  const pcm = Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 37) % 256));
  let tts: Awaited<ReturnType<typeof fakeTts>>;
  let t: TestApp;
  let ws: WebSocket;
  const got: Got[] = [];

  before(async () => {
    tts = await fakeTts(pcm);
    t = await startTestApp({ nodeRed: true, settings: { tts: { url: tts.url } } });
    ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`, [KEYS.webapp]);
    ws.on("message", (data, isBinary) => got.push(isBinary ? { binary: true, data: data as Buffer } : { binary: false, frame: JSON.parse(String(data)) }));
    await new Promise((r) => ws.once("open", r));
  });
  after(async () => {
    ws.close();
    await t.close();
    await tts.close();
  });

  const signal = () => new AbortController().signal;
  const announcements = () => got.filter((g) => g.binary || g.frame.type === "announcement");

  it("streams stream_start, whole-sample PCM frames with every byte, then stream_end", async () => {
    got.length = 0;
    const answer = await announce(t.app.ctx, { text: "Good morning, Rose.", mode: "stream" }, signal());
    assert.ok(answer.ok, JSON.stringify(answer));
    assert.deepEqual(answer.value, { mode: "stream", clients: 1, bytes: pcm.length, sample_rate: 24000 });
    await new Promise((r) => setTimeout(r, 50));
    const seen = announcements();
    assert.deepEqual(seen[0], { binary: false, frame: { type: "announcement", subtype: "stream_start", sample_rate: 24000, text: "Good morning, Rose." } });
    assert.deepEqual(seen.at(-1), { binary: false, frame: { type: "announcement", subtype: "stream_end" } });
    const chunks = seen.slice(1, -1).map((g) => (g.binary ? g.data : Buffer.alloc(1)));
    assert.ok(chunks.length > 10);
    assert.ok(
      chunks.every((c) => c.length % 2 === 0),
      "every frame holds whole int16 samples",
    );
    assert.deepEqual(Buffer.concat(chunks), pcm);
    const req = tts.requests.at(-1)!;
    assert.equal(req.response_format, "pcm");
    assert.equal(req.stream, true);
    assert.equal(req.input, "Good morning, Rose.");
  });

  it("sends two announcements one after the other, never interleaved", async () => {
    got.length = 0;
    const [a, b] = await Promise.all([
      announce(t.app.ctx, { text: "first", mode: "stream" }, signal()),
      announce(t.app.ctx, { text: "second", mode: "stream" }, signal()),
    ]);
    assert.ok(a.ok && b.ok);
    await new Promise((r) => setTimeout(r, 50));
    const kinds = announcements().map((g) => (g.binary ? "pcm" : `${g.frame.subtype}:${g.frame.text ?? ""}`));
    const endFirst = kinds.indexOf("stream_end:");
    assert.equal(kinds[0], "stream_start:first");
    assert.equal(kinds[endFirst + 1], "stream_start:second");
    assert.ok(kinds.slice(1, endFirst).every((k) => k === "pcm"));
  });

  it("file mode: a signed clip URL the app can fetch without a key", async () => {
    got.length = 0;
    const answer = await announce(t.app.ctx, { text: "The door is open.", mode: "file" }, signal());
    assert.ok(answer.ok, JSON.stringify(answer));
    for (let i = 0; i < 100 && announcements().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const frame = (announcements()[0] as { frame: Record<string, any> }).frame;
    assert.equal(frame.subtype, "audio_url");
    assert.match(frame.url, /^\/api\/v1\/media\/speech\/[0-9a-f]{64}\.mp3\?expires=\d+&sig=/);
    const clip = await t.request("GET", frame.url, { key: null });
    assert.equal(clip.status, 200);
    assert.equal(clip.headers.get("content-type"), "audio/mpeg");
    assert.equal(tts.requests.at(-1)!.response_format, "mp3");
  });

  it("is read in the senior's language: hers when she has one, the step's when it names one", async () => {
    assert.equal(tts.requests.at(-1)!.language, "en", "no Senior member with a language: the household's");
    const rosa = await t.post("/api/v1/persons", { display_name: "Rosa", language: "de" });
    assert.equal(rosa.status, 201, rosa.text);
    try {
      got.length = 0;
      assert.ok((await announce(t.app.ctx, { text: "Die Tür ist offen.", mode: "file" }, signal())).ok);
      assert.deepEqual([tts.requests.at(-1)!.input, tts.requests.at(-1)!.language], ["Die Tür ist offen.", "de"]);
      assert.ok((await announce(t.app.ctx, { text: "दरवाज़ा खुला है।", mode: "file", language: "hi" }, signal())).ok);
      assert.equal(tts.requests.at(-1)!.language, "hi", "a channel's own language wins");
    } finally {
      await t.request("DELETE", `/api/v1/persons/${rosa.body.person_id}`);
    }
  });

  it("a rule's notification step with announcement_mode: file sends the web app an audio_url", async () => {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Door as a clip", trigger_type: "manual" },
      steps: [
        {
          label: "say",
          step_type: "notification",
          schema_version: 1,
          config: {
            alert_level: "info",
            channels: ["announcement"],
            announcement_mode: "file",
            message_template: "The back door is open.",
            trigger_cooloff: false,
          },
        },
      ],
    });
    assert.equal(imported.status, 201, imported.text);
    got.length = 0;
    const run = await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`);
    assert.equal(run.status, 201, run.text);
    const exec = run.body.execution_id as number;
    let done: Record<string, any> = {};
    for (let i = 0; i < 300 && !["completed", "failed"].includes(done.status); i++) {
      await new Promise((r) => setTimeout(r, 10));
      done = (await t.get(`/api/v1/workflows/${exec}`)).body;
    }
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.equal(done.pipeline_data.notification_channels.announcement, true);
    const frames = announcements().map((g) => (g.binary ? { binary: true } : g.frame));
    assert.equal(frames.length, 1, JSON.stringify(frames));
    assert.equal(frames[0].subtype, "audio_url");
    assert.equal(frames[0].text, "The back door is open.");
    assert.match(frames[0].url, /^\/api\/v1\/media\/speech\/[0-9a-f]{64}\.mp3\?expires=\d+&sig=/);
    assert.equal(tts.requests.at(-1)!.response_format, "mp3");
    assert.match(JSON.stringify(done.step_timings[0].receipts), /spoken aloud on 1 screen \(file, \d+ bytes of audio\)/);
  });

  it("says why when nobody listens (and asks the TTS service nothing) or the TTS service is away", async () => {
    ws.close();
    for (let i = 0; i < 100 && t.app.ctx.webapp.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    const asked = tts.requests.length;
    const nobody = await announce(t.app.ctx, { text: "hello", mode: "stream" }, signal());
    assert.deepEqual(nobody, { ok: false, reason: "no tablet has the care app open" });
    assert.equal(tts.requests.length, asked);
    ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`, [KEYS.webapp]);
    await new Promise((r) => ws.once("open", r));
    const ctx = { ...t.app.ctx, settings: { ...t.app.ctx.settings, tts: { ...t.app.ctx.settings.tts, url: "http://127.0.0.1:9" } } };
    const away = await announce(ctx, { text: "hello", mode: "stream" }, signal());
    assert.equal(away.ok, false);
    assert.match((away as { reason: string }).reason, /^the TTS service at http:\/\/127\.0\.0\.1:9 did not answer/);
  });
});
