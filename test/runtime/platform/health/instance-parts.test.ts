/**
 * Each other instance of a cluster as a part (issue 44 §1), on a ManualClock with the cluster's
 * table stood in for: the others listed (never this one), one that stops renewing its heartbeat
 * late and then down after the grace, ok again when it renews, gone from the board when it
 * stops cleanly; a table that cannot be read leaves the parts as they were and says so.
 */
import assert from "node:assert/strict";
import type { ClusterInstance } from "../../../../runtime/platform/cluster/cluster";
import { isoAt, ManualClock } from "../../../../runtime/platform/core/clock";
import { INSTANCE_GRACE_MS, instancePartId, watchInstances } from "../../../../runtime/platform/health/instance-parts";
import { PartsBoard, SAMPLE_EVERY_MS } from "../../../../runtime/platform/health/parts-board";

describe("the cluster's other instances as parts", () => {
  const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));
  const board = new PartsBoard(clock);
  const table = new Map<string, ClusterInstance>();
  const failures: unknown[] = [];
  let broken = false;
  const row = (id: string, alive: boolean, self = false): ClusterInstance => ({
    instance_id: id,
    host: `${id}-host`,
    pid: 1,
    started_at: isoAt(clock.now()),
    last_heartbeat_at: isoAt(clock.now()),
    alive,
    self,
  });
  const watch = watchInstances(board, clock, {
    instances: () => (broken ? Promise.reject(new Error("connection refused")) : Promise.resolve([...table.values()])),
    failed: (err) => failures.push(err),
  });
  const stateOf = (id: string) => board.list().find((p) => p.id === instancePartId(id));
  after(() => watch.stop());

  it("lists the other instances, not this one, named by id and host", async () => {
    table.set("alpha", row("alpha", true, true));
    table.set("beta", row("beta", true));
    await watch.refresh();
    assert.equal(stateOf("alpha"), undefined, "this instance is no part of its own");
    const beta = stateOf("beta");
    assert.equal(beta?.state, "ok");
    assert.equal(beta?.kind, "instance");
    assert.equal(beta?.name, "careflow instance beta (beta-host)");
  });

  it("is late, then down after the grace, when an instance stops renewing its heartbeat; ok when it renews", async () => {
    table.set("beta", { ...row("beta", false), last_heartbeat_at: "2026-03-02T08:00:00.000Z" });
    await watch.refresh();
    assert.equal(stateOf("beta")?.state, "late");
    clock.advance(INSTANCE_GRACE_MS);
    const down = stateOf("beta");
    assert.equal(down?.state, "down");
    assert.match(down?.detail ?? "", /no heartbeat since 2026-03-02T08:00:00/);
    table.set("beta", row("beta", true));
    await watch.refresh();
    assert.equal(stateOf("beta")?.state, "ok");
  });

  it("reads the table on the clock's beat, not only when asked", async () => {
    table.set("gamma", row("gamma", true));
    assert.equal(stateOf("gamma"), undefined);
    clock.advance(SAMPLE_EVERY_MS);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stateOf("gamma")?.state, "ok");
  });

  it("takes an instance that stopped cleanly (gone from the table) off the board", async () => {
    table.delete("gamma");
    await watch.refresh();
    assert.equal(stateOf("gamma"), undefined);
    assert.equal(stateOf("beta")?.state, "ok");
  });

  it("keeps the parts as they were when the table cannot be read, and says why", async () => {
    broken = true;
    await watch.refresh();
    broken = false;
    assert.equal(stateOf("beta")?.state, "ok");
    assert.match(String(failures.at(-1)), /connection refused/);
  });
});
