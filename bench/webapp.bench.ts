/**
 * Web app speech benchmark: how soon an announcement's audio reaches the web app. The TTS
 * service (local eSpeak engine) and careflow run as child processes, as `npm run tts` and
 * `npm start` run them; a web-app client on `/ws` (the webapp key as subprotocol) times, for
 * a rule whose one step is a notification on the `announcement` channel with 200 characters,
 * the first binary PCM frame after `POST /rules/{id}/execute` (so the figure includes the
 * request, the gates and the engine before the step: an upper bound of "from the step").
 * The TTS service's own time to first byte for the same texts is the reference.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import WebSocket from "ws";
import { BENCH_ADMIN_KEY, startService, stopService } from "./service";
import { median, nowMs, percentile, report } from "./support";

const TARGET_MS = 300;
const RUNS = 10;
const WEBAPP_KEY = "bench-webapp-key-0001";
const SENTENCES = [
  "Good morning, Asha. It is eight o clock and time for your blood pressure tablet with a full glass of water. Breakfast is porridge with banana, and Ravi will call you at ten to talk about the weekend.",
  "Reminder: the physiotherapist arrives at eleven today. Please wear comfortable shoes and keep the walking frame near the sofa. After the session, rest for twenty minutes and drink some lemon water.",
  "The front door has been open for ten minutes. If you are expecting a visitor, that is fine. Otherwise please close it, because the evening is getting cold and the heating is on in the living room.",
  "It is lunch time. There is dal, rice and cucumber salad in the fridge on the middle shelf. Warm the dal for two minutes in the microwave and remember to take your vitamin tablet after the meal.",
  "Your daughter Meera sent a message: she is leaving work early and will visit you at six this evening with the grandchildren. She asks whether you would like her to bring fresh bread or fruit.",
];

async function startTts(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.join(__dirname, "..", "tts", "main.js")], {
    env: { ...process.env, TTS_PORT: "0", TTS_HOST: "127.0.0.1", TTS_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`tts exited with ${code}`)));
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === "tts listening" && entry.port) resolve({ child, url: `http://127.0.0.1:${entry.port}` });
    });
  });
}

async function ttsFirstByte(url: string, input: string): Promise<number> {
  const t0 = nowMs();
  const res = await fetch(`${url}/v1/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "svara", voice: "default", input, response_format: "pcm", stream: true }),
  });
  const reader = res.body!.getReader();
  await reader.read();
  const first = nowMs() - t0;
  while (!(await reader.read()).done);
  return first;
}

async function main(): Promise<void> {
  const ttsDir = mkdtempSync(path.join(os.tmpdir(), "webapp-bench-tts-"));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "webapp-bench-"));
  const tts = await startTts(ttsDir);
  const settingsFile = path.join(dataDir, "settings.json");
  writeFileSync(settingsFile, JSON.stringify({ tts: { url: tts.url } }));
  const app = await startService(dataDir, { CAREFLOW_SETTINGS: settingsFile, CAREFLOW_WEBAPP_KEY: WEBAPP_KEY, CAREFLOW_DEMO: "0" });
  const headers = { "x-api-key": BENCH_ADMIN_KEY, "content-type": "application/json" };
  const ws = new WebSocket(`${app.baseUrl.replace("http", "ws")}/ws`, [WEBAPP_KEY]);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let onFrame: ((binary: boolean, text: string) => void) | null = null;
  ws.on("message", (data, isBinary) => onFrame?.(isBinary, isBinary ? "" : String(data)));
  try {
    // A different text every run (the service could otherwise answer from what it just made).
    const texts = Array.from({ length: RUNS + 2 }, (_, i) => `Number ${i + 1}. ${SENTENCES[i % SENTENCES.length]}`.slice(0, 200));
    const ruleIds: number[] = [];
    for (const [i, text] of texts.entries()) {
      const res = await fetch(`${app.baseUrl}/api/v1/rules/import`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          schema_version: 1,
          rule: { name: `Announce ${i}`, trigger_type: "manual" },
          steps: [
            {
              label: "say",
              step_type: "notification",
              config: { alert_level: "info", channels: ["announcement"], message_template: text, trigger_cooloff: false },
            },
          ],
        }),
      });
      if (res.status !== 201) throw new Error(`import: ${res.status} ${await res.text()}`);
      ruleIds.push(((await res.json()) as { rule_id: number }).rule_id);
    }
    const announce = async (ruleId: number): Promise<{ start: number; audio: number; end: number; bytes: number }> => {
      const t0 = nowMs();
      const times = { start: 0, audio: 0, end: 0, bytes: 0 };
      const done = new Promise<void>((resolve) => {
        onFrame = (binary, text) => {
          if (binary) {
            if (!times.audio) times.audio = nowMs() - t0;
            times.bytes++;
            return;
          }
          const f = JSON.parse(text) as { type: string; subtype?: string };
          if (f.type !== "announcement") return;
          if (f.subtype === "stream_start") times.start = nowMs() - t0;
          if (f.subtype === "stream_end") {
            times.end = nowMs() - t0;
            resolve();
          }
        };
      });
      const res = await fetch(`${app.baseUrl}/api/v1/rules/${ruleId}/execute`, { method: "POST", headers, body: "{}" });
      if (res.status !== 201) throw new Error(`execute: ${res.status} ${await res.text()}`);
      await done;
      return times;
    };
    for (const id of ruleIds.slice(RUNS)) await announce(id); // warm-up
    const firstAudio: number[] = [];
    const streamStart: number[] = [];
    const whole: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = await announce(ruleIds[i]);
      firstAudio.push(t.audio);
      streamStart.push(t.start);
      whole.push(t.end);
    }
    const direct: number[] = [];
    for (let i = 0; i < RUNS; i++) direct.push(await ttsFirstByte(tts.url, `Reference ${i + 1}. ${SENTENCES[i % SENTENCES.length]}`.slice(0, 200)));
    const p50 = median(firstAudio);
    const p90 = percentile(firstAudio, 90);
    report(
      "webapp",
      [
        { measure: "execute → first PCM frame at the app, median", value: p50, unit: "ms", target: `< ${TARGET_MS}`, ok: p50 < TARGET_MS },
        { measure: "execute → first PCM frame at the app, p90", value: p90, unit: "ms", target: `< ${TARGET_MS}`, ok: p90 < TARGET_MS },
        { measure: "execute → stream_start, median", value: median(streamStart), unit: "ms" },
        { measure: "execute → stream_end (200 chars), median", value: median(whole), unit: "ms" },
        { measure: "TTS service alone: first byte, median", value: median(direct), unit: "ms" },
        { measure: "careflow's share of the first audio (median)", value: p50 - median(direct), unit: "ms" },
      ],
      {
        runs: RUNS,
        chars: 200,
        first_audio_ms_p50: Math.round(p50 * 10) / 10,
        first_audio_ms_p90: Math.round(p90 * 10) / 10,
        tts_first_byte_ms_p50: Math.round(median(direct) * 10) / 10,
        target_ms: TARGET_MS,
      },
    );
  } finally {
    ws.close();
    await stopService(app.child);
    tts.child.kill("SIGTERM");
    rmSync(ttsDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
