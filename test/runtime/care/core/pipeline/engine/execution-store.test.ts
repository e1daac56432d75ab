/**
 * The group commit of runs: what is written when, who waits for what, and what happens when
 * the store refuses a write. A recording writer stands in for the database here; the engine
 * and API tests run the real writers on SQLite and PostgreSQL.
 */
import assert from "node:assert/strict";
import type { Knex } from "knex";
import type { RunWrite, WriteBatch } from "../../../../../../runtime/care/core/pipeline/engine/execution-rows";
import { ExecutionStore, WRITE_DELAY_MS } from "../../../../../../runtime/care/core/pipeline/engine/execution-store";
import { newRunState, type RunState } from "../../../../../../runtime/care/core/pipeline/engine/run-state";
import type { GraphSnapshot } from "../../../../../../runtime/care/core/pipeline/engine/graph-snapshot";
import { triggerContext } from "../../../../../../runtime/care/core/pipeline/engine/types";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";

const graph: GraphSnapshot = {
  rule_id: 1,
  rule_name: "Check",
  tab_id: "t1",
  trigger_node_id: "n0",
  trigger: { trigger_type: "manual", execution_timeout_minutes: 60 } as GraphSnapshot["trigger"],
  steps: [{ id: 1, node_id: "n1", label: "c", step_type: "condition", config: { expression: "true" }, enabled: true, order: 1 }],
  edges: [],
  contexts: [],
};

const newRun = (ruleId = 1): Omit<RunState, "id"> => ({
  ...newRunState(graph, triggerContext({ trigger_type: "manual" }), {}, "2026-06-01T08:00:00.000Z", 0, null),
  rule_id: ruleId,
});

/** Lets a flush the batch clock started finish: the recording writer only awaits microtasks. */
const settled = () => new Promise((r) => setImmediate(r));

describe("execution store (group commit)", () => {
  let batches: RunWrite[][];
  let snapshotRows: unknown[][];
  let failNext: number;
  let errors: number[][];
  let store: ExecutionStore;
  /** The write delay's clock: nothing is written for the delay until the test moves it. */
  let batch: ManualClock;

  beforeEach(() => {
    batch = new ManualClock(0);
    // This test's own arrays: a store of an earlier test whose timer fires late (a loaded
    // machine) writes into the arrays it was made with, never into this test's.
    const mine = { batches: [] as RunWrite[][], snapshotRows: [] as unknown[][], errors: [] as number[][] };
    ({ batches, snapshotRows, errors } = mine);
    failNext = 0;
    const writer = async (batch: WriteBatch) => {
      if (failNext > 0) {
        failNext--;
        throw new Error("disk full");
      }
      mine.batches.push([...batch.runs]);
      mine.snapshotRows.push(...batch.snapshots);
    };
    store = new ExecutionStore(
      {} as Knex,
      writer,
      () => "2026-06-01T08:00:01.000Z",
      (_err, runs) => mine.errors.push(runs),
      null,
      batch,
    );
  });
  /** Moves the batch clock and lets what fell due be written. */
  const elapse = async (ms: number) => {
    batch.advance(ms);
    await settled();
  };

  const written = () => batches.flat();
  const statusOf = (w: RunWrite) => w.mutable[0];
  const logStatusOf = (w: RunWrite) => w.mutable[1];

  it("writes a run that ends within the delay once, already ended", async () => {
    const run = store.create(newRun());
    run.status = "completed";
    await store.save(run);
    assert.equal(written().length, 1);
    assert.ok(written()[0].fixed, "inserted, not updated");
    assert.equal(statusOf(written()[0]), "completed");
    assert.equal(logStatusOf(written()[0]), "ignored");
  });

  it("writes a run still running after the delay, then its end as an update", async () => {
    const run = store.create(newRun());
    await elapse(WRITE_DELAY_MS - 1);
    assert.equal(written().length, 0, "not before the delay");
    await elapse(1);
    assert.equal(written().length, 1);
    assert.equal(statusOf(written()[0]), "running");
    assert.equal(logStatusOf(written()[0]), "processing");
    run.status = "completed";
    run.pipeline_data._cooloff_triggered = true;
    await store.save(run);
    assert.equal(written().length, 2);
    assert.equal(written()[1].fixed, undefined, "the second write updates the row");
    assert.equal(statusOf(written()[1]), "completed");
    assert.equal(logStatusOf(written()[1]), "completed");
  });

  it("writes a run someone waits for at once, without the delay", async () => {
    const run = store.create(newRun());
    await store.whenWritten(run.id); // the batch clock never moves: no delay was waited
    assert.equal(written().length, 1);
    await store.whenWritten(run.id);
    assert.equal(written().length, 1, "nothing queued: nothing written again");
  });

  it("waits only for the queued runs of the rules asked about", async () => {
    store.create(newRun(1));
    store.create(newRun(2));
    await store.whenRulesWritten([2]);
    assert.deepEqual(
      written().map((w) => w.fixed?.[1]),
      [2],
    );
    await store.flushQueued();
    assert.equal(written().length, 2);
  });

  it("answers a read once what was queued before it is written, not held up by runs queued later", async () => {
    const before = store.create(newRun());
    const read = store.flushQueued();
    const later = store.create(newRun());
    await read;
    assert.deepEqual(
      written().map((w) => w.id),
      [before.id],
    );
    await store.whenWritten(later.id);
    assert.deepEqual(
      written().map((w) => w.id),
      [before.id, later.id],
    );
  });

  it("tells the waiters of a failed write, logs it and retries the run with the next batch", async () => {
    failNext = 1;
    const run = store.create(newRun());
    run.status = "completed";
    await assert.rejects(store.save(run), /disk full/);
    assert.deepEqual(errors, [[run.id]]);
    await settled();
    assert.equal(written().length, 0, "the retry waits for the delay");
    await elapse(WRITE_DELAY_MS);
    assert.equal(written().length, 1);
    assert.ok(written()[0].fixed, "still an insert: the first one never happened");
    assert.equal(statusOf(written()[0]), "completed");
  });

  it("gives up on a run the store keeps refusing, saying so each time", async () => {
    failNext = 100;
    const run = store.create(newRun());
    run.status = "completed";
    await assert.rejects(store.save(run));
    for (let i = 0; i < 8; i++) await elapse(WRITE_DELAY_MS);
    assert.equal(errors.length, 3);
    failNext = 0;
    await store.flushQueued();
    assert.equal(written().length, 0);
  });

  it("hands out run ids in order", () => {
    const a = store.create(newRun());
    const b = store.create(newRun());
    assert.deepEqual([a.id, b.id], [1, 2]);
  });

  it("writes a rule version's graph snapshot once, with the first run that uses it", async () => {
    store.create(newRun());
    store.create(newRun());
    await store.flushQueued();
    store.create(newRun());
    await store.flushQueued();
    assert.equal(snapshotRows.length, 1);
    const ids = written().map((w) => w.fixed?.[5]);
    assert.deepEqual(ids, [snapshotRows[0][0], snapshotRows[0][0], snapshotRows[0][0]]);
  });
});
