/**
 * Platform: cold start of `node dist/runtime/main.js` to `/health` ready (first start on
 * an empty data dir, and restarts on an existing one), idle RSS, and authenticated
 * `GET /api/v1/rooms` throughput from autocannon in this (separate) process on loopback.
 * Targets: ready < 2 s, idle RSS < 150 MB, >= 5,000 requests/s.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { median, nowMs, report } from "./support";

const MAIN = path.resolve(__dirname, "../runtime/main.js");
const ADMIN_KEY = "bench-admin-key-0001";

interface Started {
  child: ChildProcess;
  port: number;
  readyMs: number;
}

async function start(dataDir: string): Promise<Started> {
  const t0 = nowMs();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: "0", CAREFLOW_DATA_DIR: dataDir, CAREFLOW_ADMIN_KEY: ADMIN_KEY, CAREFLOW_SETTINGS: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"careflow listening"/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}`)));
  });
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return { child, port, readyMs: nowMs() - t0 };
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

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
