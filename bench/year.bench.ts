/**
 * A year of the demo household (issue 46 §1): Grandma Rose's scripted day (test/golden/rose-day.ts,
 * the day the golden trace was recorded from) lived BENCH_YEAR_DAYS (365) times through the real
 * services (the fake hub's WebSocket, the camera endpoint, the terminal, the tracking applier,
 * the example rules in Node-RED) on a manual clock, each day moved by a seeded jitter (the whole
 * day ±20 min, each step ±2 min, never backwards), with the default retention pruning hourly as
 * it does live. Measured:
 *
 * - the store's size at the end (SQLite: the file and its WAL, target under 1 GB; PostgreSQL with
 *   BENCH_DATABASE_URL: pg_database_size, reported) and the media store's;
 * - what a caregiver opens (the runs list, a run's detail, a person's timeline, the alerts list,
 *   a daily report), the median of 30 calls after the first day and again after the year:
 *   target at most 2× the first.
 *
 *   npm run bench -- year                       # SQLite, 365 days
 *   BENCH_YEAR_DAYS=30 npm run bench -- year    # a month, to try it
 *
 * SIGTERM or Ctrl-C ends the day under way and reports what the days lived so far measured.
 */
import fs from "node:fs";
import path from "node:path";
import { ManualClock } from "../runtime/platform/core/clock";
import { dailyReport } from "../runtime/care/services/reports";
import { demoHouse, startFakeHub } from "../test/fakes/hub-server";
import { startTestApp, type TestApp } from "../test/support/test-app";
import { migratedDatabase } from "../test/support/test-db";
import { DAY_FROM } from "../test/golden/golden-day";
import { liveTheDay, MIN, quiet, type Day } from "../test/golden/rose-day";
import { median, nowMs, report, type BenchRow } from "./support";

const DAYS = Number(process.env.BENCH_YEAR_DAYS ?? 365);
const CALLS = 30;
const DAY_MS = 24 * 60 * MIN;
const SIZE_TARGET_BYTES = 1024 ** 3;

/** A seeded generator: the same year on every run, so runs compare. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

type Views = Record<string, () => Promise<unknown>>;

function caregiverViews(t: TestApp, runId: number, reportDate: string): Views {
  const ok = async (p: string) => {
    const res = await t.get(p);
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${res.text}`);
  };
  return {
    "runs list": () => ok("/api/v1/workflows"),
    "a run's detail": () => ok(`/api/v1/workflows/${runId}/detail`),
    "a person's timeline (24 h)": () => ok("/api/v1/persons/rose/history?hours=24"),
    "alerts list": () => ok("/api/v1/alerts"),
    "a daily report": () => dailyReport(t.app.ctx, { person_id: "rose", report_date: reportDate }),
  };
}

async function timeViews(views: Views): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, call] of Object.entries(views)) {
    for (let i = 0; i < 3; i++) await call(); // warm
    const ms: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = nowMs();
      await call();
      ms.push(nowMs() - t0);
    }
    out[name] = median(ms);
  }
  return out;
}

function dirBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return total;
}

async function storeBytes(t: TestApp, dataDir: string): Promise<number> {
  if (t.app.ctx.dialect === "postgres") {
    const rows = (await t.app.ctx.db.raw("select pg_database_size(current_database()) as n")) as { rows: Array<{ n: string }> };
    return Number(rows.rows[0].n);
  }
  const file = path.join(dataDir, "careflow.db");
  return [file, `${file}-wal`].reduce((n, f) => n + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function main(): Promise<void> {
  if (process.env.BENCH_DATABASE_URL) process.env.CAREFLOW_TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  const day0 = Date.parse(DAY_FROM);
  const clock = new ManualClock(day0 - 10 * MIN);
  const hub = await startFakeHub({ ...demoHouse(), now: () => clock.now() });
  const database = await migratedDatabase();
  const t = await startTestApp({ clock, nodeRed: true, demo: true, database, settings: { hub: { url: hub.url, token: hub.token } } });
  const random = rng(46);
  const wall0 = nowMs();
  let fresh: Record<string, number> = {};
  let lived = 0;
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => (stopping = true));
  try {
    if (!(await t.app.ctx.hub!.client!.whenConnected(5000))) throw new Error("the app did not connect to the fake hub");
    for (let n = 0; n < DAYS && !(stopping && n > 0); n++) {
      const shift = Math.round((random() * 2 - 1) * 20 * MIN);
      const steps = new Map<string, number>();
      const d: Day = {
        t,
        hub,
        clock,
        day0: day0 + n * DAY_MS,
        pollMs: 10,
        idSuffix: `-${n}`,
        // The whole day moved, each step a little more, the same for a step's repeats in the day.
        jitter: (hhmm) => {
          if (!steps.has(hhmm)) steps.set(hhmm, shift + Math.round((random() * 2 - 1) * 2 * MIN));
          return steps.get(hhmm)!;
        },
      };
      await liveTheDay(d);
      clock.set(Math.max(clock.now(), d.day0 + DAY_MS));
      await quiet(d);
      lived = n + 1;
      if (n === 0 || (n + 1) % 30 === 0 || n === DAYS - 1)
        process.stdout.write(
          `day ${n + 1}/${DAYS}: store ${((await storeBytes(t, database.dataDir)) / 1024 ** 2).toFixed(1)} MB, ${((nowMs() - wall0) / 60_000).toFixed(1)} min\n`,
        );
      if (n === 0) {
        const runs = (await t.get("/api/v1/workflows")).body as Array<{ id: number }>;
        if (!runs.length) throw new Error("the first day made no run");
        fresh = await timeViews(caregiverViews(t, runs[0].id, dateOf(d.day0)));
      }
    }
    // The same views a year on: the latest run's detail and yesterday's report.
    const runs = (await t.get("/api/v1/workflows")).body as Array<{ id: number }>;
    const year = await timeViews(caregiverViews(t, runs[0].id, dateOf(clock.now() - DAY_MS)));
    const bytes = await storeBytes(t, database.dataDir);
    const media = dirBytes(path.join(database.dataDir, "media"));
    const rows: BenchRow[] = [
      {
        measure: `store after ${lived} days (${t.app.ctx.dialect})`,
        value: bytes / 1024 ** 2,
        unit: "MB",
        target: t.app.ctx.dialect === "sqlite" ? "< 1024" : "reported",
        ok: t.app.ctx.dialect === "sqlite" ? bytes < SIZE_TARGET_BYTES : undefined,
      },
      { measure: "media store", value: media / 1024 ** 2, unit: "MB" },
      ...Object.keys(year).flatMap((name) => [
        { measure: `${name}: day 1`, value: fresh[name], unit: "ms" },
        { measure: `${name}: day ${lived}`, value: year[name], unit: "ms", target: "≤ 2× day 1", ok: year[name] <= 2 * Math.max(fresh[name], 1) },
      ]),
      { measure: "wall time", value: (nowMs() - wall0) / 60_000, unit: "min" },
    ];
    report("year", rows, {
      days: lived,
      dialect: t.app.ctx.dialect,
      store_mb: Number((bytes / 1024 ** 2).toFixed(1)),
      media_mb: Number((media / 1024 ** 2).toFixed(1)),
      views_day1_ms: fresh,
      views_year_ms: year,
    });
  } finally {
    await t.close();
    await hub.close();
    await database.drop();
  }
}

// The app's Node-RED runtime keeps handles open after close: the bench ends itself.
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
