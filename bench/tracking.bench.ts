/**
 * Continuous tracking over the machine's NATS JetStream broker, with the app started as the
 * tracking tests start it (startTestApp, system clock), on SQLite and then on PostgreSQL
 * (BENCH_PG_URL, default the machine's; skipped when it does not answer; BENCH_TRACKING_STORES
 * names one or both):
 * 1. after a warm-up (WARMUP_SECONDS of the same events, not measured: the first events of a
 *    fresh process pay for compiling the hot paths and preparing statements, which a service
 *    that runs for days pays once), 2,000 tracking events a second for BENCH_TRACKING_SECONDS (5) from the fake tracking
 *    service (in a process of its own, tracking-publisher.ts, as the real one is, warmed by the
 *    warm-up too), each
 *    moving one of 20 people to another room: events decoded and applied per
 *    second, and p99 from publishing an event to its location state committed (the `location`
 *    event on the bus, published once the transaction committed) (target: 2,000/s, p99 < 20 ms),
 *    and careflow's CPU time per event (under 0.5 ms: 2,000/s fit in one core, whatever else
 *    loads the machine);
 * 2. a dementia signal published to its `dementia_signal` rule's first step started (seen on
 *    the engine's live events), 100 signals one after another (target: p99 < 50 ms).
 */
import path from "node:path";
import { fork, type ChildProcess } from "node:child_process";
import { startTestApp, type TestApp } from "../test/support/test-app";
import { deleteStreams, NATS_URL, portOpen, uniquePrefix } from "../test/support/nats";
import { CtsPublisher } from "../test/fakes/cts-publisher";
import type { SensorEvent } from "../runtime/platform/core/event-bus";
import { nowMs, percentile, report, type BenchRow } from "./support";
import type { PublisherInput, PublisherOutput } from "./tracking-publisher";

const RATE = Number(process.env.BENCH_TRACKING_RATE ?? 2000);
const SECONDS = Number(process.env.BENCH_TRACKING_SECONDS ?? 5);
const SIGNALS = Number(process.env.BENCH_TRACKING_SIGNALS ?? 100);
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const WARMUP_SECONDS = Number(process.env.BENCH_TRACKING_WARMUP_SECONDS ?? 1);
/** Which stores to measure, in order (`BENCH_TRACKING_STORES=postgres` for one): both by default. */
const STORES = (process.env.BENCH_TRACKING_STORES ?? "sqlite,postgres").split(",").map((s) => s.trim());
const PEOPLE = Array.from({ length: 20 }, (_, i) => `p${i}`);
const ROOMS = ["Kitchen", "Hallway"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

interface Pass {
  store: string;
  /** How fast the fake tracking service got its events acknowledged by the broker (its own process). */
  published: number;
  events: number;
  rate: number;
  p50: number;
  p99: number;
  /** careflow's CPU time (all its threads) per event applied: what the rate would be on a free core, whatever the load. */
  cpuMsPerEvent: number;
  signalP50: number;
  signalP99: number;
}

/** The warm-up: the same stream of events for people of its own, applied before the measured pass starts. */
async function warmUp(t: TestApp, prefix: string, publisher: Publisher): Promise<void> {
  const people = PEOPLE.map((p) => `warm-${p}`);
  const total = Math.ceil((RATE * WARMUP_SECONDS) / people.length) * people.length;
  if (total === 0) return;
  let count = 0;
  const off = t.app.ctx.bus.subscribe("sensor.event", (e: SensorEvent) => {
    if (e.kind === "location" && people.includes(String(e.input.person_id))) count++;
  });
  await publisher.run({ url: NATS_URL, prefix, rate: RATE, total, people, rooms: ROOMS, idPrefix: "warm" });
  const deadline = nowMs() + 30_000;
  while (count < total && nowMs() < deadline) await sleep(20);
  off();
  await sleep(200);
}

async function eventsPass(t: TestApp, prefix: string): Promise<{ rate: number; latencies: number[]; total: number; published: number; cpuMsPerEvent: number }> {
  const publisher = new Publisher();
  try {
    return await measuredEvents(t, prefix, publisher);
  } finally {
    publisher.close();
  }
}

async function measuredEvents(
  t: TestApp,
  prefix: string,
  publisher: Publisher,
): Promise<{ rate: number; latencies: number[]; total: number; published: number; cpuMsPerEvent: number }> {
  await warmUp(t, prefix, publisher);
  const total = RATE * SECONDS;
  const applied = new Map<string, number[]>();
  let count = 0;
  let lastApplied = 0;
  const off = t.app.ctx.bus.subscribe("sensor.event", (e: SensorEvent) => {
    if (e.kind !== "location") return;
    const person = String(e.input.person_id);
    if (person.startsWith("warm-")) return;
    lastApplied = nowMs();
    count++;
    const seen = applied.get(person) ?? [];
    seen.push(lastApplied);
    applied.set(person, seen);
  });
  const input: PublisherInput = { url: NATS_URL, prefix, rate: RATE, total, people: PEOPLE, rooms: ROOMS, idPrefix: "b" };
  const cpuBefore = process.cpuUsage();
  const out = await publisher.run(input);
  const deadline = nowMs() + 60_000;
  while (count < total && nowMs() < deadline) await sleep(20);
  const cpu = process.cpuUsage(cpuBefore);
  off();
  // Every event moves its person, in order: a person's k-th location change is their k-th event.
  const latencies: number[] = [];
  const nth = new Map<string, number>();
  for (let j = 0; j < total; j++) {
    const person = PEOPLE[j % PEOPLE.length];
    const k = nth.get(person) ?? 0;
    nth.set(person, k + 1);
    const at = applied.get(person)?.[k];
    if (at !== undefined) latencies.push(at - out.sentAt[j]);
  }
  const cpuMsPerEvent = (cpu.user + cpu.system) / 1000 / Math.max(1, count);
  return { rate: (latencies.length / (lastApplied - out.startedAt)) * 1000, latencies, total, published: out.published, cpuMsPerEvent };
}

/** The fake tracking service's process: forked once per store, warmed by the warm-up, then measured. */
class Publisher {
  private readonly child: ChildProcess = fork(path.join(__dirname, "tracking-publisher.js"), [], { stdio: "inherit" });

  run(input: PublisherInput): Promise<PublisherOutput> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`publisher exited with ${code}`));
      this.child.once("exit", onExit);
      this.child.once("message", (m: { ok: true; out: PublisherOutput } | { ok: false; error: string }) => {
        this.child.off("exit", onExit);
        if (m.ok) resolve(m.out);
        else reject(new Error(`publisher: ${m.error}`));
      });
      this.child.send(input);
    });
  }

  close(): void {
    if (this.child.connected) this.child.disconnect();
  }
}

async function signalsPass(t: TestApp, pub: CtsPublisher): Promise<number[]> {
  const res = await t.post("/api/v1/rules/import", {
    schema_version: 1,
    rule: { name: "Bench signal", trigger_type: "dementia_signal", cool_off_minutes: 0, max_daily_triggers: 100000 },
    steps: [{ label: "first", step_type: "condition", config: { expression: "true" } }],
    edges: [],
  });
  if (res.status !== 201) throw new Error(`rule import: ${res.status} ${res.text}`);
  const started: number[] = [];
  const off = t.app.engine!.live.subscribe(() => started.push(nowMs()), ["step_started"]);
  const latencies: number[] = [];
  for (let i = 0; i < SIGNALS; i++) {
    const before = started.length;
    const at = nowMs();
    await pub.signal({ signal_id: `bs-${i}`, identity_id: "p0", kind: "pacing", severity: "warning" });
    const until = at + 5000;
    while (started.length === before && nowMs() < until) await sleep(1);
    if (started.length > before) latencies.push(started[before] - at);
    await sleep(20);
  }
  off();
  return latencies;
}

async function pass(store: string, databaseUrl: string | undefined): Promise<Pass> {
  if (databaseUrl) process.env.CAREFLOW_TEST_DATABASE_URL = databaseUrl;
  else delete process.env.CAREFLOW_TEST_DATABASE_URL;
  const prefix = uniquePrefix("bench");
  const pub = await CtsPublisher.connect(NATS_URL, prefix);
  const t = await startTestApp({ nodeRed: true, settings: { cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix, lock_seconds: 0 } } });
  try {
    const until = nowMs() + 10_000;
    while (t.app.cts.health().state !== "connected" && nowMs() < until) await sleep(20);
    const events = await eventsPass(t, prefix);
    const signals = await signalsPass(t, pub);
    return {
      store,
      published: events.published,
      events: events.latencies.length,
      rate: events.rate,
      p50: percentile(events.latencies, 50),
      p99: percentile(events.latencies, 99),
      cpuMsPerEvent: events.cpuMsPerEvent,
      signalP50: percentile(signals, 50),
      signalP99: percentile(signals, 99),
    };
  } finally {
    await t.close();
    await pub.close();
    await deleteStreams(NATS_URL, prefix).catch(() => undefined);
  }
}

async function main(): Promise<void> {
  if (!(await portOpen(NATS_URL))) {
    process.stdout.write(`tracking: no NATS broker at ${NATS_URL}; skipped\n`);
    return;
  }
  const passes: Pass[] = [];
  if (STORES.includes("sqlite")) passes.push(await pass("sqlite", undefined));
  if (STORES.includes("postgres") && (await portOpen(PG_URL.replace(/^postgres:/, "nats:")))) passes.push(await pass("postgres", PG_URL));
  const rows: BenchRow[] = passes.flatMap((p) => [
    { measure: `${p.store}: events published (fake CTS)`, value: p.published, unit: "/s", target: `${RATE}` },
    { measure: `${p.store}: events applied`, value: p.events, unit: "events", target: `${RATE * SECONDS}`, ok: p.events === RATE * SECONDS },
    { measure: `${p.store}: events decoded and applied`, value: p.rate, unit: "/s", target: `>= ${RATE * 0.95}`, ok: p.rate >= RATE * 0.95 },
    {
      measure: `${p.store}: careflow CPU per event`,
      value: p.cpuMsPerEvent,
      unit: "ms",
      target: `< ${(1000 / RATE).toFixed(2)}`,
      ok: p.cpuMsPerEvent < 1000 / RATE,
    },
    { measure: `${p.store}: event → location p50`, value: p.p50, unit: "ms" },
    { measure: `${p.store}: event → location p99`, value: p.p99, unit: "ms", target: "< 20", ok: p.p99 < 20 },
    { measure: `${p.store}: signal → first step p50`, value: p.signalP50, unit: "ms" },
    { measure: `${p.store}: signal → first step p99`, value: p.signalP99, unit: "ms", target: "< 50", ok: p.signalP99 < 50 },
  ]);
  report("tracking", rows, { rate_target: RATE, seconds: SECONDS, passes });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`tracking bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
