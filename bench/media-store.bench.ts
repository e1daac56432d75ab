/**
 * Where shared media should live when several instances run (issue 28 §3): camera frames of
 * BENCH_MEDIA_KB (200) KB, random bytes (as incompressible as JPEG), BENCH_MEDIA_N (200) of
 * them put and then got, one after another, in each candidate:
 * - PostgreSQL: the `media_objects` table (bytea) through the store careflow uses
 *   (household/media/pg-objects.ts), on a fresh database of the machine's server (BENCH_PG_URL);
 * - NATS JetStream: a stream with one message per object (subject per name, one message kept
 *   per subject, direct get of the last): what JetStream's object store does for objects under
 *   its 128 KB chunk size, plus one chunk more; the object store module itself is not installed;
 * - an S3-compatible store (`media.store_url`) through careflow's S3 store
 *   (household/media/s3-objects.ts, signed by aws4): a real one at BENCH_S3_URL
 *   (`http://KEY:SECRET@host:9000/bucket`, MinIO), else the fake S3 of test/fakes in a process
 *   of its own (so its CPU is not counted here; it keeps objects in memory, so its times are
 *   the protocol's and careflow's, not a disk's);
 * - the filesystem store (the single-box default), for reference.
 * Per operation: p50 and p99 wall time, and this process's CPU (the servers' CPU is not
 * counted); then 8 puts at a time, frames/s. Candidates whose server does not answer are skipped.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { migrationSource } from "../runtime/platform/db/migrations";
import { pgObjects } from "../runtime/household/media/pg-objects";
import { fsObjects } from "../runtime/household/media/fs-objects";
import { s3Objects, s3Problem } from "../runtime/household/media/s3-objects";
import { openStore } from "../runtime/platform/db/store";
import { NATS_URL, portOpen } from "../test/support/nats";
import { nowMs, percentile, report, type BenchRow } from "./support";

const KB = Number(process.env.BENCH_MEDIA_KB ?? 200);
const N = Number(process.env.BENCH_MEDIA_N ?? 200);
const PARALLEL = 8;
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** The three operations every candidate offers. */
interface Candidate {
  put(name: string, bytes: Buffer): Promise<void>;
  get(name: string): Promise<Buffer | null>;
  close(): Promise<void>;
}

interface Pass {
  store: string;
  put_p50_ms: number;
  put_p99_ms: number;
  put_cpu_ms: number;
  get_p50_ms: number;
  get_p99_ms: number;
  get_cpu_ms: number;
  parallel_puts_per_s: number;
}

const frames = (tag: string): Array<{ name: string; bytes: Buffer }> =>
  Array.from({ length: N }, (_, i) => {
    const bytes = randomBytes(KB * 1024);
    return { name: `media/${tag}/${String(i).padStart(4, "0")}.jpg`, bytes };
  });

async function measure(store: string, c: Candidate): Promise<Pass> {
  const timed = async (ops: Array<() => Promise<unknown>>): Promise<{ times: number[]; cpuMs: number }> => {
    const cpu0 = process.cpuUsage();
    const times: number[] = [];
    for (const op of ops) {
      const t0 = nowMs();
      await op();
      times.push(nowMs() - t0);
    }
    const cpu = process.cpuUsage(cpu0);
    return { times, cpuMs: (cpu.user + cpu.system) / 1000 / ops.length };
  };
  const warm = frames("warm").slice(0, 10);
  for (const f of warm) await c.put(f.name, f.bytes);
  const set = frames("seq");
  const puts = await timed(set.map((f) => () => c.put(f.name, f.bytes)));
  const gets = await timed(
    set.map((f) => async () => {
      const got = await c.get(f.name);
      if (!got || got.length !== f.bytes.length) throw new Error(`${store}: ${f.name} came back wrong`);
    }),
  );
  const more = frames("par");
  const t0 = nowMs();
  for (let i = 0; i < more.length; i += PARALLEL) await Promise.all(more.slice(i, i + PARALLEL).map((f) => c.put(f.name, f.bytes)));
  const parallel = more.length / ((nowMs() - t0) / 1000);
  return {
    store,
    put_p50_ms: percentile(puts.times, 50),
    put_p99_ms: percentile(puts.times, 99),
    put_cpu_ms: puts.cpuMs,
    get_p50_ms: percentile(gets.times, 50),
    get_p99_ms: percentile(gets.times, 99),
    get_cpu_ms: gets.cpuMs,
    parallel_puts_per_s: parallel,
  };
}

async function postgres(): Promise<{ c: Candidate } | null> {
  const admin = knexFactory({ client: "pg", connection: PG_URL, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 3000 });
  const name = `careflow_media_bench_${randomBytes(4).toString("hex")}`;
  try {
    await admin.raw(`create database ${name}`);
  } catch {
    await admin.destroy();
    return null;
  }
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  const db: Knex = knexFactory({ client: "pg", connection: u.toString(), pool: { min: 0, max: 10 } });
  await db.migrate.latest({ migrationSource });
  const store = pgObjects(db);
  return {
    c: {
      put: (n, b) => store.put(n, b, Date.now()),
      get: (n) => store.get(n),
      close: async () => {
        await db.destroy();
        await admin.raw(`drop database if exists ${name} with (force)`).catch(() => undefined);
        await admin.destroy();
      },
    },
  };
}

async function jetStream(): Promise<{ c: Candidate } | null> {
  if (!(await portOpen(NATS_URL))) return null;
  const nc = await connect({ servers: NATS_URL });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const stream = `careflow_media_bench_${randomBytes(4).toString("hex")}`;
  await jsm.streams.add({ name: stream, subjects: [`${stream}.>`], max_msgs_per_subject: 1, allow_direct: true });
  // Subject tokens may not hold "/" or ".": each becomes "_".
  const subject = (n: string): string => `${stream}.${n.replace(/[/.]/g, "_")}`;
  return {
    c: {
      put: async (n, b) => void (await js.publish(subject(n), b)),
      get: async (n) => {
        const m = await jsm.direct.getMessage(stream, { last_by_subj: subject(n) });
        return m ? Buffer.from(m.data) : null;
      },
      close: async () => {
        await jsm.streams.delete(stream).catch(() => undefined);
        await nc.close();
      },
    },
  };
}

/** The fake S3 in a child process; its URL from the first line it prints. */
async function fakeS3Process(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [path.join(__dirname, "..", "test", "fakes", "s3-server-main.js")], {
    env: {
      ...process.env,
      FAKE_S3_PORT: "0",
      FAKE_S3_QUIET: "1",
      FAKE_S3_ACCESS_KEY: "bench",
      FAKE_S3_SECRET_KEY: "bench-secret",
      FAKE_S3_BUCKET: "careflow-bench",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const at = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const m = /fake S3 at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`the fake S3 ended (${code}) before it listened`)));
  });
  return { url: `http://bench:bench-secret@${new URL(at).host}/careflow-bench`, stop: () => void child.kill() };
}

async function s3(): Promise<{ c: Candidate } | null> {
  const real = process.env.BENCH_S3_URL;
  const fake = real ? null : await fakeS3Process();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-media-bench-s3-"));
  const db = await openStore("sqlite::memory:", dir);
  // Each pass in a folder of its own (a fresh store id), so a real bucket's other objects are never touched.
  const settings = { store_url: real ?? fake!.url, store_region: process.env.BENCH_S3_REGION ?? "us-east-1", store_timeout_seconds: 10 };
  const problem = await s3Problem(settings);
  if (problem) {
    process.stdout.write(`media-store: ${problem}\n`);
    fake?.stop();
    await db.close();
    return null;
  }
  const store = s3Objects(db.db, settings);
  const written: string[] = [];
  return {
    c: {
      put: async (n, b) => {
        await store.put(n, b, Date.now());
        written.push(n);
      },
      get: (n) => store.get(n),
      close: async () => {
        if (real) for (const n of written) await store.delete(n).catch(() => undefined);
        fake?.stop();
        await db.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}

function filesystem(): { c: Candidate } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-media-bench-"));
  const store = fsObjects(dir);
  return {
    c: {
      put: (n, b) => store.put(n, b, Date.now()),
      get: (n) => store.get(n),
      close: async () => fs.rmSync(dir, { recursive: true, force: true }),
    },
  };
}

async function main(): Promise<void> {
  const passes: Pass[] = [];
  for (const [store, open] of [
    ["postgres", postgres],
    ["jetstream", jetStream],
    [process.env.BENCH_S3_URL ? "s3" : "s3 (fake)", s3],
    ["filesystem", async () => filesystem()],
  ] as const) {
    const opened = await open();
    if (!opened) {
      process.stdout.write(`media-store: ${store} does not answer; skipped\n`);
      continue;
    }
    try {
      passes.push(await measure(store, opened.c));
    } finally {
      await opened.c.close();
    }
  }
  const rows: BenchRow[] = passes.flatMap((p) => [
    { measure: `${p.store}: put p50 / p99`, value: `${p.put_p50_ms.toFixed(2)} / ${p.put_p99_ms.toFixed(2)}`, unit: "ms" },
    { measure: `${p.store}: get p50 / p99`, value: `${p.get_p50_ms.toFixed(2)} / ${p.get_p99_ms.toFixed(2)}`, unit: "ms" },
    { measure: `${p.store}: careflow CPU per put / get`, value: `${p.put_cpu_ms.toFixed(2)} / ${p.get_cpu_ms.toFixed(2)}`, unit: "ms" },
    { measure: `${p.store}: puts, ${PARALLEL} at a time`, value: Math.round(p.parallel_puts_per_s), unit: "frames/s" },
  ]);
  report("media-store", rows, { frame_kb: KB, frames: N, passes });
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
