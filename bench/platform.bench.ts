/**
 * Platform: cold start of `node dist/runtime/main.js` to `/health` ready (first start on
 * an empty data dir, and restarts on an existing one), `npm start` to the first 200 from
 * `/health` with nothing changed since the build, RSS 3 s after start and idle (20 s after:
 * V8 gives back the young generation the start-up's churn grew only once allocation has been
 * quiet a while, ~10 s; measured 152 MB at 3 s, 114 MB from ~12 s on), and authenticated
 * `GET /api/v1/rooms` from autocannon (10 connections) in this (separate) process on loopback.
 * Targets (issue 29): npm start < 1 s, >= 10,000 requests/s with p99 < 10 ms; idle RSS < 150 MB.
 * The load average is printed with the figures: the box may be shared.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { median, report } from "./support";
import { BENCH_ADMIN_KEY as ADMIN_KEY, startService as start, stopService as stop } from "./service";

const rssMb = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
};

/** When the service counts as idle: after its start-up's caches were saved and V8 shrank the heap. */
const IDLE_AFTER_MS = 20_000;

async function main(): Promise<void> {
  const load0 = os.loadavg()[0];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-"));
  const first = await start(dataDir);
  await stop(first.child);

  const restarts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const s = await start(dataDir);
    restarts.push(s.readyMs);
    await stop(s.child);
  }

  const npmStarts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const n = await start(dataDir, {}, true);
    npmStarts.push(n.readyMs);
    await stop(n.child);
  }

  const s = await start(dataDir);
  await new Promise((r) => setTimeout(r, 3000));
  const startRss = rssMb(s.child.pid!);
  await new Promise((r) => setTimeout(r, IDLE_AFTER_MS - 3000));
  const idleRss = rssMb(s.child.pid!);

  const result = await autocannon({
    url: `http://127.0.0.1:${s.port}/api/v1/rooms`,
    headers: { "x-api-key": ADMIN_KEY },
    connections: 10,
    duration: 8,
  });
  const non2xx = result.non2xx;
  await stop(s.child);
  fs.rmSync(dataDir, { recursive: true, force: true });

  const ready = median(restarts);
  const npmStart = median(npmStarts);
  const rps = result.requests.average;
  const p99 = result.latency.p99;
  report(
    "platform",
    [
      { measure: "first start to /health (empty data dir, demo seeded)", value: first.readyMs, unit: "ms" },
      { measure: "cold start to /health (median of 3 restarts)", value: ready, unit: "ms", target: "< 2000", ok: ready < 2000 },
      { measure: "npm start to first 200 from /health (median of 3)", value: npmStart, unit: "ms", target: "< 1000", ok: npmStart < 1000 },
      { measure: "RSS 3 s after start", value: startRss, unit: "MB" },
      { measure: `idle RSS (${IDLE_AFTER_MS / 1000} s after start)`, value: idleRss, unit: "MB", target: "< 150", ok: idleRss < 150 },
      { measure: "GET /api/v1/rooms (10 connections, 8 s)", value: rps, unit: "req/s", target: ">= 10000", ok: rps >= 10000 },
      { measure: "  latency p99", value: p99, unit: "ms", target: "< 10", ok: p99 < 10 },
      { measure: "  non-2xx answers", value: non2xx, unit: "" },
      { measure: "load average (1 min) at start / end", value: `${load0.toFixed(2)} / ${os.loadavg()[0].toFixed(2)}`, unit: `on ${os.cpus().length} cpus` },
    ],
    {
      first_start_ms: first.readyMs,
      cold_start_ms: ready,
      npm_start_ms: npmStart,
      start_rss_mb: startRss,
      idle_rss_mb: idleRss,
      rooms_rps: rps,
      rooms_p99_ms: p99,
      non2xx,
      loadavg_start: load0,
      loadavg_end: os.loadavg()[0],
    },
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
