/**
 * Platform: cold start of `node dist/runtime/main.js` to `/health` ready (first start on
 * an empty data dir, and restarts on an existing one), idle RSS, and authenticated
 * `GET /api/v1/rooms` throughput from autocannon in this (separate) process on loopback.
 * Targets: ready < 2 s, idle RSS < 150 MB, >= 5,000 requests/s.
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

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-"));
  const first = await start(dataDir);
  await stop(first.child);

  const restarts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const s = await start(dataDir);
    restarts.push(s.readyMs);
    await stop(s.child);
  }

  const s = await start(dataDir);
  await new Promise((r) => setTimeout(r, 3000));
  const idleRss = rssMb(s.child.pid!);

  const result = await autocannon({
    url: `http://127.0.0.1:${s.port}/api/v1/rooms`,
    headers: { "x-api-key": ADMIN_KEY },
    connections: 32,
    duration: 8,
  });
  const non2xx = result.non2xx;
  await stop(s.child);
  fs.rmSync(dataDir, { recursive: true, force: true });

  const ready = median(restarts);
  const rps = result.requests.average;
  report(
    "platform",
    [
      { measure: "first start to /health (empty data dir, demo seeded)", value: first.readyMs, unit: "ms" },
      { measure: "cold start to /health (median of 3 restarts)", value: ready, unit: "ms", target: "< 2000", ok: ready < 2000 },
      { measure: "idle RSS", value: idleRss, unit: "MB", target: "< 150", ok: idleRss < 150 },
      { measure: "GET /api/v1/rooms (32 connections, 8 s)", value: rps, unit: "req/s", target: ">= 5000", ok: rps >= 5000 },
      { measure: "  latency p99", value: result.latency.p99, unit: "ms" },
      { measure: "  non-2xx answers", value: non2xx, unit: "" },
    ],
    { first_start_ms: first.readyMs, cold_start_ms: ready, idle_rss_mb: idleRss, rooms_rps: rps, rooms_p99_ms: result.latency.p99, non2xx },
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
