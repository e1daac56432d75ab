/**
 * Camera ingest (issue 14 "Figures"), every frame a real JPEG posted as the spec's camera
 * payload (base64 in JSON) over HTTP to `POST /api/v1/device/camera`, through the Devices tab
 * (rotate 90 → label filter → store → aggregate):
 * 1. upload throughput: 640x480 frames (~50 KB) from one camera, 16 connections kept busy for
 *    10 s after a 2 s warm-up, against the service started as `npm start` starts it (its own
 *    process; target: >= 150 frames/s on 2 cores);
 * 2. latency: 20 frames/s spread over 8 cameras for 15 s on a fixed schedule (open loop), same
 *    service (target: accepted-response p99 under 30 ms);
 * 3. a batch ready (the aggregator publishing it; batch_size 1, cooldown 0) to the first step of
 *    the camera's sensor_event rule starting, at the same 20 frames/s over 8 cameras, the app in
 *    this process with the embedded Node-RED (target: p99 under 20 ms);
 * 4. memory over 100,000 64x48 frames (BENCH_CAMERA_FRAMES), the app in this process on a
 *    ManualClock that each stored frame moves 100 ms, `media_retention_hours` 0.01 so the media
 *    sweep deletes as it goes; the frames are made and posted by a child process. Heap and RSS
 *    after a GC every 10,000 frames (target: heap grows < 10% from 20,000 frames to the end).
 *    Posting stops at the first sample after BENCH_CAMERA_MEMORY_S (180) seconds; the table
 *    says how many frames were run. Then one sweep of everything stored, with a frame posted as
 *    it starts: how long the sweep keeps frames waiting.
 * Every frame posted is different (the media store is content-addressed: equal frames would be
 * written once). BENCH_CAMERA_PARTS=upload,batch,memory picks parts. Goals missed are
 * reported, never a failed exit.
 */
import { createHash } from "node:crypto";
import { fork } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import sharp from "sharp";
import { createApp, type CareflowApp } from "../runtime/app/app";
import { buildSettings } from "../runtime/platform/config/load-settings";
import { ManualClock, type Clock } from "../runtime/platform/core/clock";
import { createLogger } from "../runtime/platform/core/logger";
import { nodeRedHost } from "../runtime/platform/nodered/host";
import { parseRow, selectExecutions } from "../runtime/care/core/pipeline/engine/execution-rows";
import { commitImport } from "../runtime/care/core/rules/bundles/bundle-import";
import { SWEEP_EVERY_MS, sweepExpired } from "../runtime/household/media/media.service";
import type { SettingsInput } from "../settings";
import { nowMs, percentile, report, type BenchRow } from "./support";
import { startService, stopService } from "./service";

const CAMERAS = 8;
const THROUGHPUT_CONNECTIONS = 16;
const THROUGHPUT_S = 10;
const WARMUP_S = 2;
const PACED_FPS = 20;
const PACED_S = 15;
/** Distinct 640x480 frames made before timing: enough for 10 s at 300 frames/s and the paced runs. */
const POOL = Number(process.env.BENCH_CAMERA_POOL ?? 3600);
const MEMORY_FRAMES = Number(process.env.BENCH_CAMERA_FRAMES ?? 100_000);
/** Posting stops at the first sample after this many seconds, however many frames that was. */
const MEMORY_BUDGET_S = Number(process.env.BENCH_CAMERA_MEMORY_S ?? 180);
const SAMPLE_EVERY = 10_000;
const MEMORY_CONNECTIONS = 8;
/** Clock time between two frames in the memory run; retention 0.01 h = 36 s of it. */
const CLOCK_STEP_MS = 100;
const RETENTION_HOURS = 0.01;

const ADMIN_KEY = "bench-admin-key-01";
const cameraKey = (i: number): string => `BCAM${String(i + 1).padStart(4, "0")}`;
const cameraSensor = (i: number): string => `bench_cam_${i + 1}`;

function cameraSettings(aggregator: SettingsInput["aggregator"] = {}): SettingsInput {
  return {
    auth: {
      api_keys: [{ key: ADMIN_KEY, name: "bench", permissions: ["admin"] }],
      device_keys: Array.from({ length: CAMERAS }, (_, i) => ({
        key: cameraKey(i),
        sensor_id: cameraSensor(i),
        device_type: "camera_device" as const,
        permissions: ["device:camera"],
      })),
    },
    cameras: Object.fromEntries(Array.from({ length: CAMERAS }, (_, i) => [cameraSensor(i), { rotate: 90 as const }])),
    aggregator,
  };
}

// ---------------------------------------------------------------------------------------
// Frames

/** A camera-like picture (gradients and sensor noise: ~50 KB at 640x480 q80) as raw RGB. */
function texture(width: number, height: number): Buffer {
  const raw = Buffer.alloc(width * height * 3);
  let s = 12345;
  const noise = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 40;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const sx = x / width;
      const sy = y / height;
      raw[i] = Math.min(255, 70 + 90 * sx + noise());
      raw[i + 1] = Math.min(255, 60 + 110 * sy + noise());
      raw[i + 2] = Math.min(255, 90 + 60 * Math.abs(Math.sin(7 * sx + 5 * sy)) + noise());
    }
  }
  return raw;
}

/** Bits of a frame's number, one black or white 8x8 block each: they survive JPEG's quantization. */
const MARK_BITS = 20;

/**
 * Frames `from`..`from+count-1` of the texture, each with its number drawn in blocks along the
 * top, so every frame (and every frame rotated and re-encoded) has different bytes.
 */
async function makeFrames(raw: Buffer, width: number, height: number, from: number, count: number): Promise<Buffer[]> {
  const cols = width / 8;
  const out: Buffer[] = new Array(count);
  const one = async (k: number): Promise<void> => {
    const n = from + k;
    const px = Buffer.from(raw);
    for (let b = 0; b < MARK_BITS; b++) {
      const v = (n >> b) & 1 ? 255 : 0;
      const cx = (b % cols) * 8;
      const cy = Math.floor(b / cols) * 8;
      for (let y = 0; y < 8; y++) px.fill(v, ((cy + y) * width + cx) * 3, ((cy + y) * width + cx + 8) * 3);
    }
    out[k] = await sharp(px, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 80 })
      .toBuffer();
  };
  for (let k = 0; k < count; k += 32) await Promise.all(Array.from({ length: Math.min(32, count - k) }, (_, j) => one(k + j)));
  return out;
}

/** The spec's camera payload around a frame, as the request body. */
const payload = (jpeg: Buffer, width: number, height: number): Buffer =>
  Buffer.from(
    JSON.stringify({
      code: 0,
      data: {
        image: jpeg.toString("base64"),
        labels: ["person"],
        boxes: [[120, 80, 260, 400, 0.91, 0]],
        count: 1,
        perf: [[0, 1.4, 21.7]],
        resolution: [width, height],
      },
      name: "reCamera",
      type: 1,
    }),
  );

// ---------------------------------------------------------------------------------------
// HTTP

let agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** New connections from here on: after a pause the service may close idle ones (keepAliveTimeout, 5 s) as they are reused. */
function freshConnections(): void {
  agent.destroy();
  agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
}

interface Answer {
  status: number;
  accepted: boolean;
  object_name?: string;
  /** From the request's start to the answer's end. */
  ms: number;
  text: string;
}

/** One frame posted; a connection error is an answer too (status 0), so one never stops a run. */
function upload(port: number, key: string, body: Buffer): Promise<Answer> {
  const t0 = nowMs();
  return new Promise((resolve) => {
    const failed = (err: Error) => resolve({ status: 0, accepted: false, ms: nowMs() - t0, text: `connection: ${err.message}` });
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/api/v1/device/camera",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": body.length, "x-api-key": key },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", failed);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: { status?: string; object_name?: string } = {};
          try {
            parsed = JSON.parse(text) as typeof parsed;
          } catch {
            // reported through `text`
          }
          const accepted = res.statusCode === 200 && parsed.status === "accepted";
          resolve({ status: res.statusCode ?? 0, accepted, object_name: parsed.object_name, ms: nowMs() - t0, text });
        });
      },
    );
    req.on("error", failed);
    req.end(body);
  });
}

/** `n` clients posting back to back until `untilMs`; frames taken in turn from `bodies`, starting at `next.i`. */
async function saturate(port: number, key: string, bodies: Buffer[], next: { i: number }, connections: number, untilMs: number) {
  const latencies: number[] = [];
  let accepted = 0;
  let refused = 0;
  let firstRefusal = "";
  const client = async () => {
    while (nowMs() < untilMs) {
      const a = await upload(port, key, bodies[next.i++ % bodies.length]);
      if (a.accepted) {
        accepted++;
        latencies.push(a.ms);
      } else {
        refused++;
        firstRefusal ||= `${a.status} ${a.text.slice(0, 200)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  return { accepted, refused, firstRefusal, latencies };
}

interface Paced {
  answers: Answer[];
  /** The most a request started after its place in the schedule. */
  maxSlipMs: number;
}

/** `fps` frames a second, cameras in turn, for `seconds`, each sent at its time whether or not earlier ones were answered. */
async function paced(port: number, bodies: Buffer[], from: number, fps: number, seconds: number): Promise<Paced> {
  const total = Math.round(fps * seconds);
  const gap = 1000 / fps;
  freshConnections();
  const answers: Paced["answers"] = [];
  const pending: Array<Promise<void>> = [];
  let maxSlipMs = 0;
  const t0 = nowMs() + 20;
  for (let k = 0; k < total; k++) {
    const due = t0 + k * gap;
    const wait = due - nowMs();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait - 1));
    while (nowMs() < due) await new Promise((r) => setImmediate(r));
    maxSlipMs = Math.max(maxSlipMs, nowMs() - due);
    pending.push(upload(port, cameraKey(k % CAMERAS), bodies[(from + k) % bodies.length]).then((a) => void answers.push(a)));
  }
  await Promise.all(pending);
  return { answers, maxSlipMs };
}

// ---------------------------------------------------------------------------------------
// Memory

/** `global.gc` when node runs with --expose-gc, else the same function enabled at run time. */
function gcFunction(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
}

interface MemorySample {
  frames: number;
  rss_mb: number;
  heap_mb: number;
  external_mb: number;
  anon_mb: number;
  file_mb: number;
  shmem_mb: number;
  rows: number;
  files: number;
}

function countFiles(dir: string): number {
  let n = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else n++;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return n;
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return num / den;
}

async function openApp(dataDir: string, settings: SettingsInput, clock?: Clock): Promise<{ app: CareflowApp; port: number }> {
  const app = await createApp({
    config: { port: 0, dataDir, databaseUrl: undefined, settingsFile: undefined, settings: buildSettings(settings) },
    clock,
    log: createLogger("error"),
    nodeRed: true,
  });
  return { app, port: await app.listen(0, "127.0.0.1") };
}

// ---------------------------------------------------------------------------------------

interface Part {
  rows: BenchRow[];
  figures: Record<string, unknown>;
}

interface Pool {
  bodies: Buffer[];
  frameKb: number;
  distinct: number;
  seconds: number;
}

async function makePool(size: number): Promise<Pool> {
  const t0 = nowMs();
  const jpegs = await makeFrames(texture(640, 480), 640, 480, 0, size);
  return {
    bodies: jpegs.map((j) => payload(j, 640, 480)),
    frameKb: jpegs.reduce((a, j) => a + j.length, 0) / jpegs.length / 1024,
    distinct: new Set(jpegs.map((j) => createHash("sha256").update(j).digest("hex"))).size,
    seconds: (nowMs() - t0) / 1000,
  };
}

/** 1 and 2, against the service as `npm start` runs it (its own process). */
async function uploadPart(tmp: string, pool: Pool): Promise<Part> {
  const settingsFile = path.join(tmp, "settings.json");
  fs.writeFileSync(settingsFile, JSON.stringify(cameraSettings()));
  const svc = await startService(path.join(tmp, "service"), { CAREFLOW_SETTINGS: settingsFile, CAREFLOW_DEMO: "0" });
  const next = { i: 0 };
  await saturate(svc.port, cameraKey(0), pool.bodies, next, THROUGHPUT_CONNECTIONS, nowMs() + WARMUP_S * 1000);
  const from = next.i;
  const cpu0 = cpuNow(svc.child.pid!);
  const t1 = nowMs();
  const sat = await saturate(svc.port, cameraKey(0), pool.bodies, next, THROUGHPUT_CONNECTIONS, t1 + THROUGHPUT_S * 1000);
  const windowS = (nowMs() - t1) / 1000;
  const fps = sat.accepted / windowS;
  const cpu = cpuSince(cpu0, cpuNow(svc.child.pid!));
  const perFrame = (s: number) => (s * 1000) / sat.accepted;
  const cores = (s: number) => s / windowS;
  const posted = next.i;
  await new Promise((r) => setTimeout(r, 1000));
  const lat = await paced(svc.port, pool.bodies, next.i, PACED_FPS, PACED_S);
  const accepted = lat.answers.filter((a) => a.accepted).map((a) => a.ms);
  const refused = lat.answers.length - accepted.length;
  const rss = rssMb(svc.child.pid!);
  await stopService(svc.child);
  const p99 = percentile(accepted, 99);
  const repeats = Math.max(0, posted + lat.answers.length - pool.bodies.length);
  return {
    rows: [
      {
        measure: `1. upload, 1 camera, rotate 90, ${THROUGHPUT_CONNECTIONS} connections, ${THROUGHPUT_S} s`,
        value: fps,
        unit: "frames/s",
        target: ">= 150",
        ok: fps >= 150,
      },
      { measure: "   latency p50 / p99 under that load", value: `${fmt(percentile(sat.latencies, 50))} / ${fmt(percentile(sat.latencies, 99))}`, unit: "ms" },
      { measure: "   frames posted in the 10 s (after a 2 s warm-up); not accepted", value: `${posted - from}; ${sat.refused}`, unit: sat.firstRefusal },
      {
        measure: "   service CPU per frame: main thread / libvips workers (sharp) / other threads (libuv pool, V8, SQLite)",
        value: `${fmt(perFrame(cpu.main))} / ${fmt(perFrame(cpu.vips))} / ${fmt(perFrame(cpu.other))}`,
        unit: "ms",
      },
      {
        measure: "   CPU meanwhile: service / this client / other processes",
        value: `${fmt(cores(cpu.main + cpu.vips + cpu.other))} / ${fmt(cores(cpu.client))} / ${fmt(cores(cpu.others))}`,
        unit: `cores of ${os.cpus().length}`,
      },
      {
        measure: `2. ${PACED_FPS} frames/s over ${CAMERAS} cameras (rotate 90), ${PACED_S} s open loop, accepted p99`,
        value: p99,
        unit: "ms",
        target: "< 30",
        ok: p99 < 30,
      },
      { measure: "   p50 / max", value: `${fmt(percentile(accepted, 50))} / ${fmt(Math.max(...accepted))}`, unit: "ms" },
      {
        measure: "   frames sent; not accepted; client's worst lag behind schedule",
        value: `${lat.answers.length}; ${refused}; ${fmt(lat.maxSlipMs)} ms`,
        unit: "",
      },
      { measure: "   frames that repeated an earlier one (pool exhausted)", value: repeats, unit: "" },
      { measure: "   service RSS at the end", value: rss, unit: "MB" },
    ],
    figures: {
      upload_fps: fps,
      upload_p50_ms: percentile(sat.latencies, 50),
      upload_p99_ms: percentile(sat.latencies, 99),
      upload_cpu_ms_per_frame: { main: perFrame(cpu.main), vips: perFrame(cpu.vips), other: perFrame(cpu.other) },
      upload_cpu_cores: { service: cores(cpu.main + cpu.vips + cpu.other), client: cores(cpu.client), others: cores(cpu.others) },
      paced_p50_ms: percentile(accepted, 50),
      paced_p99_ms: p99,
      paced_max_ms: Math.max(...accepted),
      frames_repeated: repeats,
    },
  };
}

/** 3: a batch ready (the aggregator publishing it) to the first step of the camera's rule starting. */
async function batchPart(tmp: string, pool: Pool): Promise<Part> {
  const { app, port } = await openApp(path.join(tmp, "batches"), cameraSettings({ batch_size: 1, cooldown_seconds: 0 }));
  const ruleIds: number[] = [];
  for (let i = 0; i < CAMERAS; i++) {
    const { rule_id } = await commitImport(app.ctx, {
      schema_version: 1,
      rule: { name: `Camera ${i + 1} looks`, trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: cameraSensor(i) } },
      steps: [{ label: "check", step_type: "condition", schema_version: 1, config: { expression: "true" } }],
      edges: [],
    });
    ruleIds.push(rule_id!);
  }
  // When the aggregator publishes each batch: the bus wrapped, so before any subscriber sees it.
  const readyAt = new Map<string, number>();
  const bus = app.ctx.bus;
  const publish = bus.publish.bind(bus);
  bus.publish = ((topic, event) => {
    if (topic === "sensor.event" && (event as { kind?: string }).kind === "camera_batch")
      readyAt.set((event as { media_paths: string[] }).media_paths[0], nowMs());
    publish(topic, event);
  }) as typeof bus.publish;
  const firstStep = new Map<number, number>();
  const offLive = app.engine!.live.subscribe(
    (e) => {
      if (!firstStep.has(e.execution_id)) firstStep.set(e.execution_id, nowMs());
    },
    ["step_started"],
  );
  const run = await paced(port, pool.bodies, 0, PACED_FPS, PACED_S);
  await app.devices.aggregator.idle();
  const expected = run.answers.filter((a) => a.accepted).length;
  const countRuns = async () => Number((await app.ctx.db("workflow_executions").whereIn("rule_id", ruleIds).count({ n: "*" }))[0].n);
  for (let waited = 0; waited < 5000 && ((await countRuns()) < expected || firstStep.size < expected); waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
  }
  offLive();
  const runs = ((await selectExecutions(app.ctx.db).whereIn("we.rule_id", ruleIds)) as Array<Record<string, unknown>>).map((r) => parseRow(r));
  const toStep: number[] = [];
  for (const r of runs) {
    const p = r.trigger_context.media_paths?.[0];
    const ready = p === undefined ? undefined : readyAt.get(p);
    const step = firstStep.get(r.id);
    if (ready !== undefined && step !== undefined) toStep.push(step - ready);
  }
  const accepted = run.answers.filter((a) => a.accepted).map((a) => a.ms);
  await app.close();
  const p99 = percentile(toStep, 99);
  return {
    rows: [
      { measure: `3. batch ready to the rule's first step started (batch_size 1), p99`, value: p99, unit: "ms", target: "< 20", ok: p99 < 20 },
      { measure: "   p50 / max", value: `${fmt(percentile(toStep, 50))} / ${fmt(Math.max(...toStep))}`, unit: "ms" },
      {
        measure: `   batches measured / frames accepted (${PACED_FPS}/s over ${CAMERAS} cameras, ${PACED_S} s)`,
        value: `${toStep.length} / ${expected}`,
        unit: "",
      },
      {
        measure: "   frames' accepted p50 / p99 meanwhile (a rule run per frame)",
        value: `${fmt(percentile(accepted, 50))} / ${fmt(percentile(accepted, 99))}`,
        unit: "ms",
      },
    ],
    figures: { batch_to_step_p50_ms: percentile(toStep, 50), batch_to_step_p99_ms: p99, batches: toStep.length },
  };
}

/** 4: memory over many small frames, on a clock that moves CLOCK_STEP_MS a frame. */
async function memoryPart(tmp: string): Promise<Part> {
  const gc = gcFunction();
  const clock = new ManualClock(Date.parse("2026-11-24T08:00:00Z"));
  const dir = path.join(tmp, "memory");
  const { app, port } = await openApp(dir, cameraSettings({ media_retention_hours: RETENTION_HOURS }), clock);
  // Each stored frame moves the clock on: the aggregator's windows and the media sweep run as it moves.
  const offStored = app.ctx.bus.subscribe("media.stored", () => setImmediate(() => clock.advance(CLOCK_STEP_MS)));
  const samples: MemorySample[] = [];
  const sample = async (frames: number) => {
    await app.devices.aggregator.idle();
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((r) => setImmediate(r));
    }
    const m = process.memoryUsage();
    samples.push({
      frames,
      rss_mb: m.rss / 2 ** 20,
      heap_mb: m.heapUsed / 2 ** 20,
      external_mb: m.external / 2 ** 20,
      ...rssParts(),
      rows: Number((await app.ctx.db("camera_media").count({ n: "*" }))[0].n),
      files: countFiles(path.join(dir, "media")),
    });
  };
  // The frames are made and posted by a client process, so only the service is in this one.
  const client = fork(__filename, [CLIENT_ARG], { stdio: ["ignore", "inherit", "inherit", "ipc"], serialization: "advanced" });
  const done = new Promise<ClientChunk>((resolve, reject) => {
    client.on("message", (m: ClientChunk) => {
      if (m.final) return resolve(m);
      void sample(m.sent).then(
        () => client.send({ next: true }),
        (err: unknown) => reject(err instanceof Error ? err : new Error(String(err))),
      );
    });
    client.on("exit", (code) => (code ? reject(new Error(`the memory client exited with ${code}`)) : undefined));
  });
  client.send({
    port,
    key: cameraKey(0),
    total: MEMORY_FRAMES,
    every: SAMPLE_EVERY,
    connections: MEMORY_CONNECTIONS,
    budgetMs: MEMORY_BUDGET_S * 1000,
  } satisfies ClientJob);
  const { sent, refused, firstRefusal, postingMs, latencies } = await done;

  // The sweep holds the store's lock: a frame posted as a sweep of everything stored starts waits for it.
  const filesBefore = countFiles(path.join(dir, "media"));
  const [probe] = await makeFrames(texture(64, 48), 64, 48, 2 ** MARK_BITS - 1, 1);
  const tSweep = nowMs();
  clock.advance(SWEEP_EVERY_MS + 2 * 60_000);
  freshConnections();
  const probeAnswer = await upload(port, cameraKey(1), payload(probe, 64, 48));
  await sweepExpired(app.ctx);
  const sweepMs = nowMs() - tSweep;
  const swept = filesBefore - countFiles(path.join(dir, "media"));
  offStored();
  await app.close();

  const rate = sent / (postingMs / 1000);
  const first = samples[0];
  const from = samples.find((s) => s.frames >= 20_000) ?? first;
  const last = samples[samples.length - 1];
  const growth = ((last.heap_mb - from.heap_mb) / from.heap_mb) * 100;
  const later = samples.filter((s) => s.frames >= from.frames);
  const per10k = (pick: (s: MemorySample) => number) =>
    slope(
      later.map((s) => s.frames / SAMPLE_EVERY),
      later.map((s) => pick(s) * 1024),
    );
  const heapSlope = per10k((s) => s.heap_mb);
  const rssSlope = per10k((s) => s.rss_mb);
  const full = sent >= 100_000;
  const stopped = sent < MEMORY_FRAMES ? ` (stopped after ${MEMORY_BUDGET_S} s of posting: BENCH_CAMERA_MEMORY_S)` : "";
  const rows: BenchRow[] = [
    {
      measure: `4. memory: 64x48 frames posted of ${MEMORY_FRAMES}${stopped}`,
      value: sent,
      unit: `frames (rotate 90, ${MEMORY_CONNECTIONS} connections, clock +${CLOCK_STEP_MS} ms a frame)`,
    },
    { measure: "   rate (frame making and samples excluded); not accepted", value: `${fmt(rate)}; ${refused}`, unit: `frames/s; ${firstRefusal}` },
    {
      measure: "   answer p50 / p99 / max; answers over 1 s",
      value: `${fmt(percentile(latencies, 50))} / ${fmt(percentile(latencies, 99))} / ${fmt(Math.max(...latencies))}; ${latencies.filter((ms) => ms > 1000).length}`,
      unit: "ms",
    },
    { measure: `   a sweep deleting ${swept} files: from its start to its end`, value: sweepMs, unit: "ms" },
    { measure: "   a frame posted as it starts: answered after", value: probeAnswer.ms, unit: `ms (${probeAnswer.status})` },
    {
      measure: `   heap after GC at ${first.frames} / ${from.frames} / ${last.frames} frames`,
      value: `${fmt(first.heap_mb)} / ${fmt(from.heap_mb)} / ${fmt(last.heap_mb)}`,
      unit: "MB",
    },
    {
      measure: `   heap growth from ${from.frames} frames to the end${full ? "" : " (not judged: fewer than 100,000 frames)"}`,
      value: growth,
      unit: "%",
      target: "< 10",
      ok: full ? growth < 10 : undefined,
    },
    { measure: `   heap slope from ${from.frames} frames`, value: heapSlope, unit: "KB/10k frames" },
    {
      measure: `   RSS at ${first.frames} / ${from.frames} / ${last.frames} frames`,
      value: `${fmt(first.rss_mb)} / ${fmt(from.rss_mb)} / ${fmt(last.rss_mb)}`,
      unit: "MB",
    },
    { measure: `   RSS slope from ${from.frames} frames`, value: rssSlope, unit: "KB/10k frames" },
    {
      measure: "   media rows / files at the samples, most",
      value: `${Math.max(...samples.map((s) => s.rows))} / ${Math.max(...samples.map((s) => s.files))}`,
      unit: "",
    },
    ...samples.map((s) => ({
      measure: `     at ${s.frames} frames`,
      value: `heap ${fmt(s.heap_mb)}, external ${fmt(s.external_mb)}, rss ${fmt(s.rss_mb)} (anon ${fmt(s.anon_mb)}, file ${fmt(s.file_mb)}, shmem ${fmt(s.shmem_mb)})`,
      unit: `MB; ${s.rows} rows, ${s.files} files`,
    })),
  ];
  return {
    rows,
    figures: {
      memory_frames: sent,
      memory_fps: rate,
      heap_first_mb: first.heap_mb,
      heap_from_mb: from.heap_mb,
      heap_last_mb: last.heap_mb,
      heap_growth_pct: growth,
      heap_slope_kb_per_10k: heapSlope,
      rss_first_mb: first.rss_mb,
      rss_last_mb: last.rss_mb,
      rss_slope_kb_per_10k: rssSlope,
      memory_answer_p99_ms: percentile(latencies, 99),
      memory_answer_max_ms: Math.max(...latencies),
      sweep_files: swept,
      sweep_ms: sweepMs,
      frame_during_sweep_ms: probeAnswer.ms,
      media_rows_max: Math.max(...samples.map((s) => s.rows)),
      media_files_max: Math.max(...samples.map((s) => s.files)),
    },
  };
}

const CLIENT_ARG = "memory-client";
const MEMORY_ARG = "memory-part";

/** Runs this file again with `arg` and resolves with the one message it sends. */
function inChild<T>(arg: string): Promise<T> {
  const child = fork(__filename, [arg], { stdio: ["ignore", "inherit", "inherit", "ipc"], serialization: "advanced" });
  return new Promise<T>((resolve, reject) => {
    child.once("message", (m: T) => resolve(m));
    child.on("exit", (code) => reject(new Error(`${arg} exited with ${code}`)));
  });
}

/** The memory part as a child process: runs it and sends its rows and figures back. */
async function memoryMain(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-camera-memory-"));
  const part = await memoryPart(tmp);
  await nodeRedHost.shutdown();
  agent.destroy();
  fs.rmSync(tmp, { recursive: true, force: true });
  process.send!(part, () => process.exit(0));
}

interface ClientJob {
  port: number;
  key: string;
  total: number;
  every: number;
  connections: number;
  budgetMs: number;
}

interface ClientChunk {
  sent: number;
  refused: number;
  firstRefusal: string;
  postingMs: number;
  /** Answer times, ms, of the last chunk (all of them with `final`). */
  latencies: number[];
  final?: boolean;
}

/** The memory run's client (a child process): makes each 10,000 frames, posts them, reports and waits for the sample. */
function memoryClient(): void {
  process.once("message", (job: ClientJob) => {
    void (async () => {
      const small = texture(64, 48);
      const state: ClientChunk = { sent: 0, refused: 0, firstRefusal: "", postingMs: 0, latencies: [] };
      const all: number[] = [];
      while (state.sent < job.total && state.postingMs < job.budgetMs) {
        const chunk = Math.min(job.every, job.total - state.sent);
        const bodies = (await makeFrames(small, 64, 48, state.sent, chunk)).map((j) => payload(j, 64, 48));
        freshConnections();
        const t0 = nowMs();
        let k = 0;
        state.latencies = [];
        const post = async () => {
          while (k < chunk) {
            const a = await upload(job.port, job.key, bodies[k++]);
            state.latencies.push(a.ms);
            all.push(a.ms);
            if (!a.accepted) {
              state.refused++;
              state.firstRefusal ||= `${a.status} ${a.text.slice(0, 200)}`;
            }
          }
        };
        await Promise.all(Array.from({ length: job.connections }, post));
        state.postingMs += nowMs() - t0;
        state.sent += chunk;
        process.send!({ ...state });
        await new Promise((r) => process.once("message", r));
      }
      process.send!({ ...state, latencies: all, final: true }, () => process.exit(0));
    })();
  });
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-camera-"));
  const load = os.loadavg()[0];
  const parts = new Set((process.env.BENCH_CAMERA_PARTS ?? "upload,batch,memory").split(","));
  const rows: BenchRow[] = [];
  let figures: Record<string, unknown> = {};
  const add = (p: Part) => {
    rows.push(...p.rows);
    figures = { ...figures, ...p.figures };
  };

  if (parts.has("upload") || parts.has("batch")) {
    // Frames before anything is timed.
    const pool = await makePool(parts.has("upload") ? POOL : Math.round(PACED_FPS * PACED_S));
    rows.push({
      measure: `640x480 frames: ${pool.distinct} distinct of ${pool.bodies.length}, made before timing`,
      value: pool.frameKb,
      unit: `KB avg (${fmt(pool.seconds)} s)`,
    });
    figures.frame_kb = pool.frameKb;
    if (parts.has("upload")) add(await uploadPart(tmp, pool));
    if (parts.has("batch")) add(await batchPart(tmp, pool));
    pool.bodies.length = 0;
  }
  // In a process of its own, so what the parts before it left behind is not in its RSS.
  if (parts.has("memory")) add(await inChild<Part>(MEMORY_ARG));
  await nodeRedHost.shutdown();
  agent.destroy();
  fs.rmSync(tmp, { recursive: true, force: true });
  rows.push({ measure: "load average (1 min) before / after", value: `${fmt(load)} / ${fmt(os.loadavg()[0])}`, unit: `on ${os.cpus().length} cpus` });
  report("camera", rows, { ...figures, load_avg_before: load, cpus: os.cpus().length });
  process.exit(0);
}

const fmt = (v: number): string => v.toFixed(1);

/**
 * CPU seconds so far (Linux /proc, USER_HZ 100): the service's main thread, its libvips worker
 * threads (sharp's pixel work), its other threads; this process; and the whole box busy.
 */
interface CpuTimes {
  main: number;
  vips: number;
  other: number;
  client: number;
  box: number;
}

function cpuNow(pid: number): CpuTimes {
  const t: CpuTimes = { main: 0, vips: 0, other: 0, client: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6, box: 0 };
  const tasks = `/proc/${pid}/task`;
  if (!fs.existsSync(tasks)) return { main: NaN, vips: NaN, other: NaN, client: t.client, box: NaN };
  for (const tid of fs.readdirSync(tasks)) {
    try {
      const stat = fs.readFileSync(`${tasks}/${tid}/stat`, "utf8");
      const name = /\((.*)\)/.exec(stat)?.[1] ?? "";
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const sec = (Number(f[11]) + Number(f[12])) / 100;
      if (tid === String(pid)) t.main += sec;
      else if (name.startsWith("libvips")) t.vips += sec;
      else t.other += sec;
    } catch {
      // a thread that ended meanwhile
    }
  }
  const cpuLine = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1).map(Number);
  t.box = (cpuLine[0] + cpuLine[1] + cpuLine[2] + cpuLine[5] + cpuLine[6] + cpuLine[7]) / 100;
  return t;
}

function cpuSince(a: CpuTimes, b: CpuTimes): CpuTimes & { others: number } {
  const d = { main: b.main - a.main, vips: b.vips - a.vips, other: b.other - a.other, client: b.client - a.client, box: b.box - a.box };
  return { ...d, others: d.box - d.main - d.vips - d.other - d.client };
}

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;

/** Resident memory by kind (Linux): anonymous (heap, native allocations), file-backed, shared. */
function rssParts(): { anon_mb: number; file_mb: number; shmem_mb: number } {
  const status = fs.existsSync("/proc/self/status") ? fs.readFileSync("/proc/self/status", "utf8") : "";
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  return { anon_mb: kb("RssAnon"), file_mb: kb("RssFile"), shmem_mb: kb("RssShmem") };
}

if (process.argv[2] === CLIENT_ARG) {
  memoryClient();
} else if (process.argv[2] === MEMORY_ARG) {
  memoryMain().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
