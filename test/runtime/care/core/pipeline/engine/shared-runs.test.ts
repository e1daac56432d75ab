/**
 * Two cluster instances' run stores on one PostgreSQL database (each its own pool, as two
 * processes have): run ids never collide, a parked run is claimed by exactly one of them however
 * many claims race, the runs of a dead instance are taken over once and those of a live one are
 * left alone, and an instance taken for dead no longer writes the runs a survivor took over.
 * The processes themselves (prompt answered elsewhere, kill -9): cluster-runs.test.ts.
 */
import assert from "node:assert/strict";
import type { Knex } from "knex";
import type { CareContext } from "../../../../../../runtime/care/core/context";
import { ExecutionStore } from "../../../../../../runtime/care/core/pipeline/engine/execution-store";
import { adoptOrphans } from "../../../../../../runtime/care/core/pipeline/engine/run-adoption";
import { recoverRuns } from "../../../../../../runtime/care/core/pipeline/engine/recovery";
import { newRunState, type RunState, type Waiting } from "../../../../../../runtime/care/core/pipeline/engine/run-state";
import type { GraphSnapshot } from "../../../../../../runtime/care/core/pipeline/engine/graph-snapshot";
import { triggerContext } from "../../../../../../runtime/care/core/pipeline/engine/types";
import { executionWriter } from "../../../../../../runtime/care/core/pipeline/engine/writers/execution-writer";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../../../runtime/platform/core/logger";
import { sharedPg, type SharedPg } from "../../../../../support/pg-cluster";
import { testDialect } from "../../../../../support/test-db";

const T0 = Date.parse("2026-11-27T08:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

const graphOf = (ruleId: number, label: string): GraphSnapshot => ({
  rule_id: ruleId,
  rule_name: `Rule ${ruleId}`,
  tab_id: `t${ruleId}`,
  trigger_node_id: "n0",
  trigger: { trigger_type: "manual", execution_timeout_minutes: 60 } as GraphSnapshot["trigger"],
  steps: [{ id: 1, node_id: "n1", label, step_type: "wait", config: { duration_minutes: 1 }, enabled: true, order: 1 }],
  edges: [],
  contexts: [],
});

describe("runs shared by two cluster instances (PostgreSQL)", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  let dbA: Knex;
  let dbB: Knex;
  let a: ExecutionStore;
  let b: ExecutionStore;
  const clock = new ManualClock(T0);
  const errors: Array<{ owner: string; runs: number[] }> = [];

  const storeOf = (db: Knex, owner: string): ExecutionStore =>
    new ExecutionStore(
      db,
      executionWriter(db, "postgres", owner),
      () => iso(clock.now()),
      (_err, runs) => errors.push({ owner, runs }),
      owner,
    );
  const ctxOf = (db: Knex) => ({ db, clock, log: createLogger("silent") }) as unknown as CareContext;

  before(async function () {
    if (testDialect() === "sqlite") {
      process.stdout.write("\n    SKIPPED: a cluster needs PostgreSQL (this runs in the PostgreSQL pass)\n");
      this.skip();
    }
    pg = await sharedPg(this);
    dbA = (await pg.open()).db;
    dbB = (await pg.open()).db;
    a = storeOf(dbA, "a");
    b = storeOf(dbB, "b");
    await a.init();
    await b.init();
  });
  after(async () => {
    await pg?.drop();
  });

  /** A new run of `graph`, with its id from the store's sequence (as the engine's startRun gets it). */
  const newRun = async (store: ExecutionStore, graph: GraphSnapshot): Promise<RunState> => {
    while (!store.hasId()) await store.reserveIds();
    return store.create(newRunState(graph, triggerContext({ trigger_type: "manual" }), {}, iso(clock.now()), clock.now(), null));
  };
  /** A run of `graph` parked at its wait until `resumeAt`, written by `store`. */
  const parkedRun = async (store: ExecutionStore, graph: GraphSnapshot, resumeAt: number): Promise<RunState> => {
    const run = await newRun(store, graph);
    const w: Waiting = { node_id: "n1", step_id: 1, ports: ["main"], resume_at: iso(resumeAt) };
    run.waiting.push(w);
    run.status = "waiting";
    await store.save(run);
    return run;
  };
  const rowOf = async (id: number) => dbA("workflow_executions").where({ id }).first();

  it("gives the runs of both instances distinct ids, each stamped with its instance, sharing one snapshot per rule version", async () => {
    const g = graphOf(1, "pause");
    const runs = await Promise.all(Array.from({ length: 130 }, (_, i) => parkedRun(i % 2 ? a : b, { ...g }, T0 + 60_000)));
    const ids = runs.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, "an id was handed out twice");
    const rows: Array<{ id: number; instance_id: string; graph_snapshot_id: number }> = await dbA("workflow_executions")
      .whereIn("id", ids)
      .select("id", "instance_id", "graph_snapshot_id");
    assert.equal(rows.length, 130);
    for (const r of rows) assert.equal(r.instance_id, ids.indexOf(r.id) % 2 ? "a" : "b");
    assert.equal(new Set(rows.map((r) => r.graph_snapshot_id)).size, 1, "one snapshot row for one rule version");
    const [{ n }] = await dbA("graph_snapshots").count({ n: "*" });
    assert.equal(Number(n), 1);
    assert.deepEqual(errors, []);
  });

  it("numbers runs in the order they start, whichever instance starts them (lists show the newest first by id)", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push((await newRun(i % 2 ? a : b, graphOf(1, "pause"))).id);
    assert.deepEqual(
      ids,
      [...ids].sort((x, y) => x - y),
    );
  });

  it("lets exactly one of many racing claims take a parked run, and the claim moves it to its instance", async () => {
    for (let round = 0; round < 5; round++) {
      const run = await parkedRun(a, graphOf(2, "pause"), T0 - 1);
      const results = await Promise.all([
        a.claimDue([{ id: run.id, remaining: [] }], iso(T0)).then((ids) => ({ who: "a", won: ids.includes(run.id) })),
        b.claimResume(run.id, []).then((won) => ({ who: "b", won })),
        b.claimDue([{ id: run.id, remaining: [] }], iso(T0)).then((ids) => ({ who: "b", won: ids.includes(run.id) })),
        a.claimResume(run.id, []).then((won) => ({ who: "a", won })),
      ]);
      const winners = results.filter((r) => r.won);
      assert.equal(winners.length, 1, JSON.stringify(results));
      const row = await rowOf(run.id);
      assert.equal(row.status, "running");
      assert.equal(row.instance_id, winners[0].who);
    }
  });

  it("claims only the parking an instance read: not one another instance made since (it would run steps twice)", async () => {
    const run = await parkedRun(a, graphOf(2, "pause"), T0 - 1);
    const seen = (await rowOf(run.id)).updated_at as string;
    clock.advance(1000);
    // b resumes it (an answer) and the run parks again, at once due.
    assert.equal(await b.claimResume(run.id, [], seen), true);
    clock.advance(1000);
    await dbB("workflow_executions")
      .where({ id: run.id })
      .update({ status: "waiting", resume_at: iso(T0 - 1), waiting: "[]", updated_at: iso(clock.now()) });
    assert.deepEqual(await a.claimDue([{ id: run.id, remaining: [], seen }], iso(clock.now())), [], "a's copy read before is stale");
    assert.equal(await a.claimResume(run.id, [], seen), false);
    const fresh = (await rowOf(run.id)).updated_at as string;
    assert.deepEqual(await a.claimDue([{ id: run.id, remaining: [], seen: fresh }], iso(clock.now())), [run.id]);
  });

  it("takes over the runs of a dead instance once, fails the running ones visibly, and leaves a live instance's runs alone", async () => {
    const dead = storeOf(dbB, "dead");
    await dead.init();
    const parked = await parkedRun(dead, graphOf(3, "pause"), T0 + 5000);
    const running = await newRun(dead, graphOf(3, "pause"));
    await dead.save(running);
    const aliveRun = await newRun(b, graphOf(3, "pause"));
    await b.save(aliveRun);

    // A start of `a` recovers only a's own runs: b's running run stays running.
    await recoverRuns(ctxOf(dbA), "a");
    assert.equal((await rowOf(aliveRun.id)).status, "running");
    assert.equal((await rowOf(running.id)).status, "running");

    // Two survivors look at once: each run is taken over by one of them.
    const [byA, byB] = await Promise.all([adoptOrphans(ctxOf(dbA), "a", ["a", "b"]), adoptOrphans(ctxOf(dbB), "b", ["a", "b"])]);
    const armed = [...byA, ...byB].filter((p) => p.id === parked.id);
    assert.equal(armed.length, 1, "the parked run's timeout is armed by one survivor");
    assert.equal(armed[0].resume_at, iso(T0 + 5000));
    const failed = await rowOf(running.id);
    assert.equal(failed.status, "failed");
    assert.match(failed.error, /interrupted/);
    assert.equal((await rowOf(parked.id)).status, "waiting");
    assert.equal((await rowOf(aliveRun.id)).status, "running", "a live instance's run is left alone");
    assert.equal((await rowOf(aliveRun.id)).instance_id, "b");
    assert.deepEqual(await adoptOrphans(ctxOf(dbA), "a", ["a", "b"]), [], "nothing is taken over twice");

    // The "dead" instance was only stalled: what it writes now of the run it lost changes nothing.
    running.status = "completed";
    await dead.save(running);
    assert.equal((await rowOf(running.id)).status, "failed");
    assert.deepEqual(
      errors.filter((e) => e.owner === "dead").map((e) => e.runs),
      [[running.id]],
    );
  });
});
