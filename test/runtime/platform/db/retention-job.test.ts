/**
 * The retention job (docs/retention.md) on the store the run uses (SQLite, or PostgreSQL with
 * CAREFLOW_TEST_DATABASE_URL), on a ManualClock: old ended runs go and a waiting or running run
 * of the same age stays; a resolved old alert goes with its actions and history, an
 * unacknowledged one stays; the objects pruned rows named go unless a kept row names them;
 * what a daily report still to be stored reads stays whatever the days say; 0 keeps for ever;
 * the job runs on the lease holder only, hourly; bad settings are refused naming the field;
 * and a SQLite file shrinks after a large prune (and an old file is made incremental at start).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import knexFactory from "knex";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { buildSettings, SettingsError } from "../../../../runtime/platform/config/load-settings";
import {
  pruneAll,
  startRetentionJob,
  RETENTION_EVERY_MS,
  RETENTION_FIRST_AFTER_MS,
  RETENTION_LEASE,
  type RetentionPlan,
} from "../../../../runtime/platform/db/retention-job";
import { autoVacuumMode } from "../../../../runtime/platform/db/sqlite-space";
import { openStore } from "../../../../runtime/platform/db/store";
import type { LeaseHandlers, Leases } from "../../../../runtime/platform/cluster/leases";
import { PgLeases } from "../../../../runtime/platform/cluster/pg-leases";
import { retentionPlan } from "../../../../runtime/app/retention-plan";
import { objectPath, storeObject } from "../../../../runtime/household/media/media.service";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { freshDatabase, testDialect } from "../../../support/test-db";

// Ahead of the real time: an object written by this test is older than the store's grace minute.
const NOW = Date.now() + 10 * 60_000;
const daysAgo = (d: number): string => new Date(NOW - d * 86_400_000).toISOString();

interface RunSeed {
  rule_name: string;
  status: "completed" | "failed" | "cancelled" | "running" | "waiting";
  at: string;
  pipeline_data?: Record<string, unknown>;
}

const ended = (s: RunSeed["status"]): boolean => s !== "running" && s !== "waiting";

describe("retention job", function () {
  this.timeout(120_000);
  let t: TestApp;
  let clock: ManualClock;

  before(async () => {
    clock = new ManualClock(NOW);
    t = await startTestApp({ clock });
  });
  after(() => t?.close());

  const db = () => t.app.ctx.db;
  const prune = () => pruneAll(t.app.ctx, retentionPlan(t.app.ctx));
  const insertRuns = async (runs: RunSeed[]): Promise<void> => {
    for (const r of runs)
      await db()("workflow_executions").insert({
        rule_id: 1,
        rule_name: r.rule_name,
        status: r.status,
        log_status: ended(r.status) ? "completed" : "processing",
        trigger_type: "manual",
        trigger_context: JSON.stringify({ trigger_type: "manual" }),
        pipeline_data: JSON.stringify(r.pipeline_data ?? {}),
        started_at: r.at,
        updated_at: r.at,
        completed_at: ended(r.status) ? r.at : null,
        resume_at: r.status === "waiting" ? daysAgo(-1) : null,
      });
  };
  const runNames = async (): Promise<string[]> => (await db()("workflow_executions").orderBy("rule_name").select("rule_name")).map((r) => r.rule_name);

  it("prunes ended runs older than retention.runs_days and keeps a waiting or running run of the same age", async () => {
    await insertRuns([
      { rule_name: "old completed", status: "completed", at: daysAgo(40) },
      { rule_name: "old failed", status: "failed", at: daysAgo(31) },
      { rule_name: "old waiting", status: "waiting", at: daysAgo(40) },
      { rule_name: "old running", status: "running", at: daysAgo(40) },
      { rule_name: "recent completed", status: "completed", at: daysAgo(29) },
    ]);
    const report = await prune();
    assert.equal(report.rows.runs, 2);
    assert.deepEqual(await runNames(), ["old running", "old waiting", "recent completed"]);
    // The event log is a view of the runs: it lost the same rows.
    assert.equal(Number((await db()("event_logs").count({ n: "*" }))[0].n), 3);
  });

  it("prunes a resolved old alert with its actions and history, and keeps an unacknowledged one however old", async () => {
    const alert = async (description: string, raised: string, resolvedAt: string | null): Promise<number> => {
      const [row] = await db()("alerts")
        .insert({
          timestamp: raised,
          alert_type: "fall",
          level: "warning",
          description,
          resolved: resolvedAt !== null,
          resolved_at: resolvedAt,
          resolved_by: resolvedAt ? "anna" : null,
        })
        .returning("id");
      const id = Number(typeof row === "object" ? row.id : row);
      await db()("alert_history").insert({ alert_id: id, at: raised, event: "sent", channel: "chat_app", target: "family", escalation: 0 });
      if (resolvedAt) await db()("alert_actions").insert({ alert_id: id, action: "dismiss", actor: "anna", created_at: resolvedAt });
      return id;
    };
    const gone = await alert("resolved long ago", daysAgo(400), daysAgo(399));
    const open = await alert("nobody answered", daysAgo(500), null);
    const recent = await alert("resolved this year", daysAgo(100), daysAgo(100));
    assert.equal((await prune()).rows["resolved alerts"], 1);
    const left = (await db()("alerts").orderBy("id").select("id")).map((r) => Number(r.id));
    assert.deepEqual(left, [open, recent]);
    assert.equal((await db()("alert_history").where({ alert_id: gone })).length, 0);
    assert.equal((await db()("alert_actions").where({ alert_id: gone })).length, 0);
    assert.equal((await db()("alert_history").where({ alert_id: open })).length, 1);
  });

  it("deletes the objects pruned rows named and keeps those a kept row still names", async () => {
    const bytes = (n: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(`frame ${n} ${NOW}`), Buffer.from([0xff, 0xd9])]);
    const [onlyPruned, shared, ofAlert] = [
      await storeObject(t.app.ctx, bytes(1), "jpg"),
      await storeObject(t.app.ctx, bytes(2), "jpg"),
      await storeObject(t.app.ctx, bytes(3), "jpg"),
    ];
    const file = (name: string) => path.join(t.app.ctx.dataDir, objectPath(name));
    for (const n of [onlyPruned, shared, ofAlert]) assert.ok(fs.existsSync(file(n)), `${n} stored`);
    // Past the store's grace minute, which keeps an object just written whatever names it.
    clock.advance(2 * 60_000);
    await insertRuns([
      { rule_name: "pruned with frames", status: "completed", at: daysAgo(60), pipeline_data: { media_paths: [`media/${onlyPruned}`, `media/${shared}`] } },
      { rule_name: "pruned, frame of an alert", status: "completed", at: daysAgo(60), pipeline_data: { media_paths: [`media/${ofAlert}`] } },
      { rule_name: "waiting with a frame", status: "waiting", at: daysAgo(60), pipeline_data: { media_paths: [`media/${shared}`] } },
    ]);
    await db()("alerts").insert({
      timestamp: daysAgo(60),
      alert_type: "fall",
      level: "warning",
      description: "open, with its image",
      image_url: `/media/${ofAlert}?sig=x`,
    });
    const report = await prune();
    assert.equal(report.rows.runs, 2);
    assert.equal(report.media, 1);
    assert.equal(fs.existsSync(file(onlyPruned)), false, "the object only a pruned run named is deleted");
    assert.equal(fs.existsSync(file(shared)), true, "the object a waiting run names is kept");
    assert.equal(fs.existsSync(file(ofAlert)), true, "the object an open alert names is kept");
  });

  it("keeps what a daily report still to be stored reads, whatever the days say, and 0 keeps for ever", async () => {
    const activity = (type: string, at: string) =>
      db()("person_activities").insert({ timestamp: at, activity_type: type, person_id: "rose", room_name: "kitchen", confidence: 0.9, metadata_json: "{}" });
    await activity("within the reports' catch-up", daysAgo(8));
    await activity("older than the reports need", daysAgo(12));
    const ctx = t.app.ctx;
    const saved = ctx.settings.retention;
    try {
      ctx.settings.retention = { ...saved, activities_days: 1, audit_log_days: 0 };
      await db()("audit_log").insert({
        at: daysAgo(5000),
        actor: "admin",
        action: "create",
        target_type: "rule",
        target_id: "1",
        target_name: "kept for ever",
      });
      const report = await prune();
      assert.equal(report.rows.activities, 1);
      assert.deepEqual(
        (await db()("person_activities").select("activity_type")).map((r) => r.activity_type),
        ["within the reports' catch-up"],
      );
      assert.equal(report.rows["audit log"], undefined, "0: not pruned at all");
      assert.equal((await db()("audit_log").where({ target_name: "kept for ever" })).length, 1);
    } finally {
      ctx.settings.retention = saved;
    }
  });

  it("keeps each person's latest location, an unacknowledged warning signal and the highest-numbered visitor, however old", async () => {
    const move = (person_id: string, room_name: string, at: string) =>
      db()("person_location_history").insert({ person_id, room_id: room_name, room_name, source: "camera", confidence: 1, timestamp: at });
    await move("rose", "kitchen", daysAgo(400));
    await move("rose", "bedroom", daysAgo(300));
    await move("rose", "hall", daysAgo(1));
    await move("john", "garden", daysAgo(400));
    const signal = (signal_id: string, severity: string, acknowledged_at: string | null) =>
      db()("dementia_signals").insert({
        signal_id,
        person_id: "rose",
        kind: "wandering",
        severity,
        details_json: "{}",
        created_at: daysAgo(800),
        acknowledged_at,
      });
    await signal("acked", "warning", daysAgo(799));
    await signal("unacked", "warning", null);
    await signal("info only", "info", null);
    for (const n of [1, 2, 3]) {
      await db()("face_visitors").insert({
        visitor_id: `visitor-${n}`,
        number: n,
        sighting_count: 1,
        first_seen_at: daysAgo(400),
        last_seen_at: daysAgo(n === 2 ? 10 : 400),
      });
      await db()("face_descriptors").insert({ visitor_id: `visitor-${n}`, descriptor_json: "[0.1]", created_at: daysAgo(400) });
    }
    const report = await prune();
    assert.equal(report.rows["location history"], 2);
    assert.deepEqual(
      (await db()("person_location_history").orderBy("person_id").orderBy("timestamp").select("person_id", "room_name")).map(
        (r) => `${r.person_id}:${r.room_name}`,
      ),
      ["john:garden", "rose:hall"],
    );
    assert.deepEqual(
      (await db()("dementia_signals").select("signal_id")).map((r) => r.signal_id),
      ["unacked"],
    );
    assert.deepEqual(
      (await db()("face_visitors").orderBy("number").select("visitor_id")).map((r) => r.visitor_id),
      ["visitor-2", "visitor-3"],
    );
    assert.deepEqual(
      (await db()("face_descriptors").orderBy("visitor_id").select("visitor_id")).map((r) => r.visitor_id),
      ["visitor-2", "visitor-3"],
    );
  });

  it("runs on the lease holder only: minutes after taking it, then hourly on the clock", async () => {
    const leases = oneHolder();
    const jobClock = new ManualClock(NOW);
    let planned = 0;
    const plan = (): RetentionPlan => {
      planned++;
      return { tables: [], deleteMedia: async () => 0, giveSpaceBack: async () => undefined };
    };
    const log = createLogger("silent");
    const a = startRetentionJob({ clock: jobClock, log, cluster: { leases: leases.of("a") } }, plan);
    const b = startRetentionJob({ clock: jobClock, log, cluster: { leases: leases.of("b") } }, plan);
    // The first round a few minutes after start: the start's own catching up first.
    assert.equal(jobClock.nextDueAt(), NOW + RETENTION_FIRST_AFTER_MS);
    jobClock.advance(RETENTION_FIRST_AFTER_MS);
    await a.idle();
    await b.idle();
    assert.deepEqual([a.rounds(), b.rounds(), planned], [1, 0, 1]);
    jobClock.advance(RETENTION_EVERY_MS);
    await a.idle();
    assert.deepEqual([a.rounds(), b.rounds()], [2, 0]);
    // The holder stops: the lease passes, and the other instance prunes from then on.
    await a.stop();
    jobClock.advance(RETENTION_FIRST_AFTER_MS);
    await b.idle();
    assert.deepEqual([a.rounds(), b.rounds()], [2, 1]);
    jobClock.advance(RETENTION_EVERY_MS);
    await b.idle();
    assert.deepEqual([a.rounds(), b.rounds()], [2, 2]);
    await b.stop();
    assert.equal(jobClock.pendingTimers(), 0, "the job's hourly timer is a background one");
    assert.equal(jobClock.nextDueAt(), undefined, "stopped: no timer left");
  });

  it("with PostgreSQL leases, prunes on one of two instances only", async function () {
    if (testDialect() !== "postgres") this.skip();
    const jobClock = new ManualClock(NOW);
    const log = createLogger("silent");
    const made = ["a", "b"].map((id) => new PgLeases({ db: db(), clock: jobClock, log, instanceId: `retention-${id}`, leaseMs: 3000 }));
    for (const l of made) await l.start();
    const plan = (): RetentionPlan => ({ tables: [], deleteMedia: async () => 0, giveSpaceBack: async () => undefined });
    const jobs = made.map((leases) => startRetentionJob({ clock: jobClock, log, cluster: { leases } }, plan));
    try {
      for (const l of made) await l.settled();
      jobClock.advance(RETENTION_FIRST_AFTER_MS);
      for (const l of made) await l.settled();
      for (const j of jobs) await j.idle();
      assert.deepEqual(jobs.map((j) => j.rounds()).sort(), [0, 1], "one round, on the holder only");
      assert.equal(made.filter((l) => l.holds(RETENTION_LEASE)).length, 1);
    } finally {
      for (const j of jobs) await j.stop();
      for (const l of made) await l.stop();
    }
  });

  it("docs/retention.md lists every retention setting with its default", () => {
    const doc = fs.readFileSync(path.resolve(__dirname, "../../../../../docs/retention.md"), "utf8");
    for (const [key, days] of Object.entries(buildSettings({}).retention))
      assert.ok(doc.includes(`| \`retention.${key}\` | ${days} |`), `retention.${key} (${days}) missing from the table of docs/retention.md`);
  });

  it("takes an absent setting as its default, 0 as for ever, and refuses a bad one naming the field", () => {
    const s = buildSettings({});
    assert.equal(s.retention.runs_days, 30);
    assert.ok(s.retention.alerts_days > s.retention.runs_days, "alerts are kept longer than runs");
    assert.equal(buildSettings({ retention: { runs_days: 0 } }).retention.runs_days, 0);
    for (const [bad, field] of [
      [{ runs_days: -1 }, "retention.runs_days"],
      [{ alerts_days: 1.5 }, "retention.alerts_days"],
      [{ audit_log_days: "forever" }, "retention.audit_log_days"],
      [{ run_days: 3 }, "run_days"],
    ] as const)
      assert.throws(
        () => buildSettings({ retention: bad }),
        (err: Error) => err instanceof SettingsError && err.message.includes(field),
        `${JSON.stringify(bad)} refused naming ${field}`,
      );
  });
});

describe("retention: the SQLite file gives its space back", function () {
  this.timeout(120_000);
  before(function () {
    // PostgreSQL's autovacuum gives the space back to the tables (docs/retention.md): nothing to measure here.
    if (testDialect() !== "sqlite") this.skip();
  });

  it("makes an old file incremental once at start (logged), and shrinks the file after a large prune", async () => {
    const fresh = await freshDatabase();
    const file = path.join(fresh.dataDir, "careflow.db");
    // A file made before careflow set auto_vacuum: its first table written without it.
    const old = knexFactory({ client: "better-sqlite3", connection: { filename: file }, useNullAsDefault: true });
    await old.raw("create table made_before (x integer)");
    await old.destroy();
    const logged: string[] = [];
    const log = { info: (_o: object, msg: string) => void logged.push(msg) };
    const store = await openStore(undefined, fresh.dataDir, { log });
    try {
      assert.equal(await autoVacuumMode(store.db), 2);
      assert.equal(logged.filter((m) => m.includes("VACUUM")).length, 1);
      const big = JSON.stringify({ text: "x".repeat(4000) });
      const rows = Array.from({ length: 20 }, (_, i) => ({
        rule_id: 1,
        rule_name: `r${i}`,
        status: "completed",
        log_status: "completed",
        trigger_type: "manual",
        trigger_context: "{}",
        pipeline_data: big,
        started_at: daysAgo(100),
        updated_at: daysAgo(100),
        completed_at: daysAgo(100),
      }));
      for (let i = 0; i < 250; i++) await store.db("workflow_executions").insert(rows);
      const size = async (): Promise<number> => {
        await store.db.raw("pragma wal_checkpoint(TRUNCATE)");
        return fs.statSync(file).size;
      };
      const before = await size();
      assert.ok(before > 15_000_000, `the file holds the runs: ${before} bytes`);
      const settings = buildSettings({});
      const ctx = { db: store.db, settings, clock: new ManualClock(NOW), log: createLogger("silent"), dataDir: fresh.dataDir };
      const report = await pruneAll(ctx, retentionPlan(ctx as unknown as Parameters<typeof retentionPlan>[0]));
      assert.equal(report.rows.runs, 5000);
      const after = await size();
      assert.ok(after < before / 5, `the file shrank: ${before} → ${after} bytes`);
    } finally {
      await store.close();
      await fresh.drop();
    }
  });
});

/** Leases where the first instance to ask holds each lease until it gives it back; then the next waiting one takes it. */
function oneHolder(): { of(id: string): Leases } {
  const waiting: Array<{ id: string; name: string; h: LeaseHandlers }> = [];
  const holders = new Map<string, string>();
  const grant = (w: { id: string; name: string; h: LeaseHandlers }) => {
    holders.set(w.name, w.id);
    void w.h.onAcquire({ name: w.name, token: 1 });
  };
  return {
    of: (id) => ({
      instanceId: id,
      run(name, h) {
        const me = { id, name, h };
        if (holders.has(name)) waiting.push(me);
        else grant(me);
        return async () => {
          if (holders.get(name) !== id) return void waiting.splice(waiting.indexOf(me), 1);
          await h.onLose();
          holders.delete(name);
          const next = waiting.shift();
          if (next) grant(next);
        };
      },
      holds: (name) => holders.get(name) === id,
      local: () => [{ name: RETENTION_LEASE, token: holders.get(RETENTION_LEASE) === id ? 1 : null }],
      stop: async () => undefined,
    }),
  };
}
