/**
 * Text-to-speech benchmark: time to first PCM byte, real-time factor, and 8 concurrent requests,
 * against the service started as a child process (as `npm run tts` runs it) on a free port.
 * Prints a table, then one JSON line with the figures.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

const TARGET_TTFB_MS = 150;
const TARGET_RTF = 20;
const TARGET_CONCURRENCY_RATIO = 3;
const CONCURRENCY = 8;
const RUNS = 10;

/** Eight different announcements of 200 characters each, so nothing can be served twice. */
const SENTENCES = [
  "Good morning, Asha. It is eight o clock and time for your blood pressure tablet with a full glass of water. Breakfast is porridge with banana, and Ravi will call you at ten to talk about the weekend.",
  "Reminder: the physiotherapist arrives at eleven today. Please wear comfortable shoes and keep the walking frame near the sofa. After the session, rest for twenty minutes and drink some lemon water.",
  "The front door has been open for ten minutes. If you are expecting a visitor, that is fine. Otherwise please close it, because the evening is getting cold and the heating is on in the living room.",
  "It is lunch time. There is dal, rice and cucumber salad in the fridge on the middle shelf. Warm the dal for two minutes in the microwave and remember to take your vitamin tablet after the meal.",
  "Your daughter Meera sent a message: she is leaving work early and will visit you at six this evening with the grandchildren. She asks whether you would like her to bring fresh bread or fruit.",
  "The weather this afternoon is sunny with a light breeze and twenty four degrees. It is a good time for a short walk in the garden. Please take your hat and your phone, and stay on the flat path.",
  "You have been sitting for two hours. Let us stand up slowly, stretch the arms above the head, and walk to the kitchen for a glass of water. Small movements every hour keep the joints comfortable.",
  "Good night, Asha. The doors are locked, the stove is off and the night light in the hallway is on. If you need help during the night, press the red button next to the bed and someone will answer.",
];
const LONG_TEXT = `${SENTENCES.slice(0, 5).join(" ")}`.slice(0, 1000);

interface Timing {
  firstByteMs: number;
  totalMs: number;
  bytes: number;
}

function speak(port: number, body: Record<string, unknown>): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const started = performance.now();
    let firstByteMs = 0;
    let bytes = 0;
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/audio/speech",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        res.on("data", (chunk: Buffer) => {
          if (bytes === 0) firstByteMs = performance.now() - started;
          bytes += chunk.length;
        });
        res.on("end", () => resolve({ firstByteMs, totalMs: performance.now() - started, bytes }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const streamed = (input: string) => ({ model: "espeak", voice: "en-us-female", input, stream: true });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function startService(dataDir: string): Promise<{ child: ChildProcess; port: number; workers: number }> {
  const child = spawn(process.execPath, [path.join(__dirname, "..", "tts", "main.js")], {
    env: { ...process.env, TTS_PORT: "0", TTS_HOST: "127.0.0.1", TTS_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`service exited with ${code}`)));
    lines.on("line", async (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg !== "tts listening" || !entry.port) return;
      const health = (await (await fetch(`http://127.0.0.1:${entry.port}/health`)).json()) as { engines: { espeak: { workers: number } } };
      resolve({ child, port: entry.port, workers: health.engines.espeak.workers });
    });
  });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "tts-bench-"));
  const { child, port, workers } = await startService(dataDir);
  try {
    for (const sentence of SENTENCES.slice(0, 3)) await speak(port, streamed(sentence));

    const ttfb: number[] = [];
    for (let i = 0; i < RUNS; i++) ttfb.push((await speak(port, streamed(SENTENCES[i % SENTENCES.length]))).firstByteMs);

    const rtfs: number[] = [];
    let longAudioSeconds = 0;
    for (let i = 0; i < 5; i++) {
      const run = await speak(port, streamed(LONG_TEXT));
      longAudioSeconds = run.bytes / 2 / 24000;
      rtfs.push(longAudioSeconds / (run.totalMs / 1000));
    }
    const mp3Runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await speak(port, { model: "espeak", voice: "en-us-female", input: LONG_TEXT, response_format: "mp3" });
      mp3Runs.push(longAudioSeconds / (run.totalMs / 1000));
    }

    const single: number[] = [];
    for (let i = 0; i < 5; i++) single.push((await speak(port, streamed(SENTENCES[i]))).totalMs);
    const singleMs = percentile(single, 50);
    const loaded = await Promise.all(SENTENCES.slice(0, CONCURRENCY).map((s) => speak(port, streamed(s))));
    const loadedMax = Math.max(...loaded.map((r) => r.totalMs));
    const loadedTtfbMax = Math.max(...loaded.map((r) => r.firstByteMs));

    const figures = {
      cores: os.availableParallelism(),
      espeak_workers: workers,
      ttfb_ms_p50: round(percentile(ttfb, 50)),
      ttfb_ms_p95: round(percentile(ttfb, 95)),
      rtf_x_pcm_stream: round(percentile(rtfs, 50)),
      rtf_x_mp3: round(percentile(mp3Runs, 50)),
      long_text_audio_s: round(longAudioSeconds),
      single_request_ms: round(singleMs),
      concurrent_requests: CONCURRENCY,
      concurrent_max_ms: round(loadedMax),
      concurrent_ratio: round(loadedMax / singleMs),
      concurrent_ttfb_max_ms: round(loadedTtfbMax),
    };
    const met = {
      ttfb: figures.ttfb_ms_p95 < TARGET_TTFB_MS,
      rtf: figures.rtf_x_pcm_stream >= TARGET_RTF,
      concurrency: figures.concurrent_ratio <= TARGET_CONCURRENCY_RATIO,
    };
    const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
    const rows: [string, string, string, string][] = [
      [
        "time to first PCM byte, 200 chars streamed (p50 / p95)",
        `${figures.ttfb_ms_p50} / ${figures.ttfb_ms_p95} ms`,
        `< ${TARGET_TTFB_MS} ms (p95)`,
        verdict(met.ttfb),
      ],
      [
        `real-time factor, 1,000 chars streamed (${figures.long_text_audio_s} s of audio)`,
        `${figures.rtf_x_pcm_stream}x`,
        `>= ${TARGET_RTF}x`,
        verdict(met.rtf),
      ],
      ["real-time factor, 1,000 chars as MP3", `${figures.rtf_x_mp3}x`, "(info)", ""],
      ["single 200-char request, total", `${figures.single_request_ms} ms`, "(reference)", ""],
      [
        `${CONCURRENCY} concurrent 200-char requests, slowest total`,
        `${figures.concurrent_max_ms} ms (${figures.concurrent_ratio}x)`,
        `<= ${TARGET_CONCURRENCY_RATIO}x single`,
        verdict(met.concurrency),
      ],
      [`${CONCURRENCY} concurrent, slowest first byte`, `${figures.concurrent_ttfb_max_ms} ms`, "(info)", ""],
    ];
    const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c].length), 6));
    console.log(`TTS benchmark: ${figures.cores} cores, ${workers} eSpeak workers`);
    console.log(["measure", "result", "target", "status"].map((h, c) => h.padEnd(widths[c])).join(" | "));
    console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
    for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c])).join(" | "));
    if (!met.concurrency) {
      console.log(
        `note: concurrency target missed. Synthesis is CPU-bound: with ${workers} eSpeak worker(s) on ${figures.cores} cores ` +
          `the last of ${CONCURRENCY} equal requests cannot finish before ${round(CONCURRENCY / workers)}x the single-request time.`,
      );
    }
    console.log(JSON.stringify({ bench: "tts", ...figures, targets_met: met }));
  } finally {
    child.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
