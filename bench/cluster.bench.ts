/**
 * Several careflow processes on one PostgreSQL (issue 28, "Figures"), started by the launcher of
 * `npm run cluster` (runtime/app/ops/cluster-launcher.ts):
 * 1. runs/s of the durable 5-step flow (5 condition steps, as bench/engine.bench.ts) with 1, 2
 *    and 3 instances, started over REST round-robin, and the careflow CPU per run. On a 2-core
 *    box the ratio shows the coordination overhead, not scaling: the processes share the cores;
 * 2. lease failover: kill -9 the holder of `cron` 20 times, time until a survivor holds it (p99);
 * 3. event fan-out: a run started on one instance, its events seen on /ws/pipeline of another
 *    (p99 of receipt minus the event's `at`); "not available" when they never arrive there.
 *
 * Needs PostgreSQL (BENCH_DATABASE_URL, else CAREFLOW_TEST_DATABASE_URL, else the local server):
 * each phase gets a fresh database, dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import WebSocket from "ws";
import { startCluster, type ClusterInstance, type RunningCluster } from "../runtime/app/ops/cluster-launcher";
import { nowMs, percentile, report, type BenchRow } from "./support";

const SERVER = process.env.BENCH_DATABASE_URL ?? process.env.CAREFLOW_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const NATS = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const RUNS = Number(process.env.BENCH_CLUSTER_RUNS ?? 3000);
const WARMUP = 300;
const IN_FLIGHT = 32;
const KILLS = Number(process.env.BENCH_CLUSTER_KILLS ?? 20);
const FANOUT_RUNS = 200;
const ADMIN = "bench-cluster-admin-key-0001";
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Db {
  url: string;
  drop(): Promise<void>;
}

async function freshDb(): Promise<Db> {
  const name = `careflow_bench_cluster_${randomBytes(5).toString("hex")}`;
  const admin = knexFactory({ client: "pg", connection: SERVER, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const u = new URL(SERVER);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = knexFactory({ client: "pg", connection: SERVER, pool: { min: 0, max: 1 } });
      await a.raw(`drop database if exists ${name} with (force)`);
      await a.destroy();
    },
  };
}

async function call(i: ClusterInstance, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${i.url}${p}`, {
    method,
    headers: { "x-api-key": ADMIN, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const FIVE_CONDITIONS = {
  schema_version: 1,
  rule: { name: "Five conditions", trigger_type: "manual", execution_timeout_minutes: 60 },
  steps: Array.from({ length: 5 }, (_, i) => ({ label: `s${i}`, step_type: "condition", config: { expression: "trigger_type == 'manual'" } })),
  edges: Array.from({ length: 4 }, (_, i) => ({ source_label: `s${i}`, source_port: "true", target_label: `s${i + 1}` })),
};

/** CPU seconds (user + system) the process has used, from /proc. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return 0;
  }
}

async function start(db: Db, count: number, setup?: (first: ClusterInstance) => Promise<void>): Promise<{ cluster: RunningCluster; dataRoot: string }> {
  const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-cluster-"));
  const cluster = await startCluster({
    count,
    databaseUrl: db.url,
    natsUrl: NATS,
    basePort: 0,
    dataRoot,
    adminKey: ADMIN,
    idPrefix: "bench",
    afterFirst: setup,
  });
  return { cluster, dataRoot };
}

/** Completed runs of the rule in the store. */
async function completed(db: Db, ruleId: number): Promise<number> {
  const k = knexFactory({ client: "pg", connection: db.url, pool: { min: 0, max: 1 } });
  try {
    const [{ n }] = await k("workflow_executions").where({ rule_id: ruleId, status: "completed" }).count({ n: "*" });
    return Number(n);
  } finally {
    await k.destroy();
  }
}

interface Throughput {
  instances: number;
  runsPerS: number;
  cpuMsPerRun: number;
  written: number;
  asked: number;
}

/** Starts `n` runs round-robin, IN_FLIGHT at a time; counts the completed rows once the count settles. */
async function throughput(count: number): Promise<Throughput> {
  const db = await freshDb();
  let ruleId = 0;
  const { cluster, dataRoot } = await start(db, count, async (first) => {
    ruleId = (await call(first, "POST", "/api/v1/rules/import", FIVE_CONDITIONS)).body.rule_id as number;
  });
  try {
    const inst = cluster.instances;
    const fire = async (n: number) => {
      let next = 0;
      const worker = async () => {
        while (next < n) {
          const i = next++;
          await call(inst[i % inst.length], "POST", `/api/v1/rules/${ruleId}/execute`);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    };
    /** Waits until `target` runs are written, or the count stops moving for 3 s (runs lost); when the last one came. */
    const settle = async (target: number): Promise<{ n: number; at: number }> => {
      let last = { n: -1, at: nowMs() };
      for (;;) {
        const n = await completed(db, ruleId);
        if (n >= target) return { n, at: nowMs() };
        if (n !== last.n) last = { n, at: nowMs() };
        else if (nowMs() - last.at > 3000) return last;
        await sleep(50);
      }
    };
    await fire(WARMUP);
    const warm = (await settle(WARMUP)).n;
    const cpu0 = inst.reduce((s, i) => s + cpuSeconds(i.pid), 0);
    const t0 = nowMs();
    await fire(RUNS);
    const done = await settle(warm + RUNS);
    const elapsed = done.at - t0;
    const cpu = inst.reduce((s, i) => s + cpuSeconds(i.pid), 0) - cpu0;
    const written = done.n - warm;
    return { instances: count, runsPerS: written / (elapsed / 1000), cpuMsPerRun: (cpu * 1000) / Math.max(1, written), written, asked: RUNS };
  } finally {
    await cluster.stop();
    await db.drop();
    fs.rmSync(dataRoot, { recursive: true, force: true });
  }
}

const holderOf = async (via: ClusterInstance, lease: string): Promise<string | null> => {
  const res = await call(via, "GET", "/api/v1/admin/cluster");
  return ((res.body?.leases ?? []) as Array<{ name: string; holder: string | null }>).find((l) => l.name === lease)?.holder ?? null;
};

/** Kills the holder of `cron` KILLS times (3 instances, the default 3 s lease); ms until a survivor holds it. */
async function failover(): Promise<number[]> {
  const db = await freshDb();
  const { cluster, dataRoot } = await start(db, 3);
  const times: number[] = [];
  try {
    const inst = cluster.instances;
    for (let k = 0; k < KILLS; k++) {
      const alive = inst.filter((i) => i.running);
      let holder: string | null = null;
      for (let tries = 0; !holder && tries < 200; tries++) {
        holder = await holderOf(alive[0], "cron");
        if (!holder) await sleep(50);
      }
      const victim = inst.find((i) => i.id === holder);
      if (!victim) throw new Error("no instance holds cron");
      const witness = inst.find((i) => i !== victim && i.running)!;
      const t0 = nowMs();
      await victim.kill();
      for (;;) {
        const h = await holderOf(witness, "cron").catch(() => null);
        if (h && h !== victim.id) break;
        await sleep(20);
      }
      times.push(nowMs() - t0);
      await victim.start();
    }
    return times;
  } finally {
    await cluster.stop();
    await db.drop();
    fs.rmSync(dataRoot, { recursive: true, force: true });
  }
}

/** Runs started on instance 1, their events watched on /ws/pipeline of instance 2; null when none arrive. */
async function fanout(): Promise<number[] | null> {
  const db = await freshDb();
  let ruleId = 0;
  const { cluster, dataRoot } = await start(db, 2, async (first) => {
    ruleId = (await call(first, "POST", "/api/v1/rules/import", FIVE_CONDITIONS)).body.rule_id as number;
  });
  const [a, b] = cluster.instances;
  const ws = new WebSocket(`${b.url.replace("http", "ws")}/ws/pipeline`, [ADMIN]);
  const latencies: number[] = [];
  try {
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    ws.on("message", (data) => {
      const e = JSON.parse(String(data)) as { event_type: string; at: string; rule_id: number };
      if (e.rule_id === ruleId && e.event_type === "pipeline_started") latencies.push(Date.now() - Date.parse(e.at));
    });
    // One probe first: without the fan-out, B never hears of A's runs.
    await call(a, "POST", `/api/v1/rules/${ruleId}/execute`);
    await sleep(3000);
    if (latencies.length === 0) return null;
    latencies.length = 0;
    for (let i = 0; i < FANOUT_RUNS; i++) {
      await call(a, "POST", `/api/v1/rules/${ruleId}/execute`);
      await sleep(10);
    }
    await sleep(2000);
    return latencies;
  } finally {
    ws.close();
    await cluster.stop();
    await db.drop();
    fs.rmSync(dataRoot, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const tp: Throughput[] = [];
  for (const n of [1, 2, 3]) {
    tp.push(await throughput(n));
    process.stdout.write(
      `  ${n} instance(s): ${tp[n - 1].runsPerS.toFixed(0)} runs/s, ${tp[n - 1].cpuMsPerRun.toFixed(2)} ms CPU/run, ${tp[n - 1].written}/${RUNS} written\n`,
    );
  }
  const kills = await failover();
  const fan = await fanout();
  const one = tp[0];
  const rows: BenchRow[] = [];
  for (const t of tp) {
    rows.push({ measure: `${t.instances} instance(s), 5 condition steps, durable, over REST`, value: t.runsPerS, unit: "runs/s" });
    if (t.instances > 1) rows.push({ measure: `  ratio to 1 instance`, value: t.runsPerS / one.runsPerS, unit: "" });
    rows.push({ measure: `  careflow CPU per run`, value: t.cpuMsPerRun, unit: "ms" });
    rows.push({ measure: `  runs written of ${t.asked} started`, value: t.written, unit: "runs", target: `= ${t.asked}`, ok: t.written === t.asked });
  }
  if (tp.some((t) => t.written < t.asked))
    rows.push({
      measure: "  (runs not written: each process hands out run ids from its own counter; they collide across instances until shared run ids)",
      value: "",
      unit: "",
    });
  const p99 = percentile(kills, 99);
  rows.push({ measure: `lease failover after kill -9 (cron, 3 s lease), p99 of ${kills.length}`, value: p99 / 1000, unit: "s", target: "< 5", ok: p99 < 5000 });
  rows.push({ measure: "  p50", value: percentile(kills, 50) / 1000, unit: "s" });
  const fanP99 = fan ? percentile(fan, 99) : null;
  rows.push(
    fan
      ? { measure: `event fan-out across instances, p99 of ${fan.length}`, value: fanP99!, unit: "ms", target: "< 20", ok: fanP99! < 20 }
      : { measure: "event fan-out across instances", value: "not available", unit: "", target: "< 20" },
  );
  if (fan) rows.push({ measure: "  p50", value: percentile(fan, 50), unit: "ms" });
  report("cluster", rows, {
    runs_per_s: Object.fromEntries(tp.map((t) => [t.instances, t.runsPerS])),
    ratio_2: tp[1].runsPerS / one.runsPerS,
    ratio_3: tp[2].runsPerS / one.runsPerS,
    cpu_ms_per_run: Object.fromEntries(tp.map((t) => [t.instances, t.cpuMsPerRun])),
    runs_written: Object.fromEntries(tp.map((t) => [t.instances, t.written])),
    runs_started: RUNS,
    failover_p99_s: p99 / 1000,
    failover_p50_s: percentile(kills, 50) / 1000,
    kills: kills.length,
    fanout_p99_ms: fanP99,
  });
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`cluster bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
