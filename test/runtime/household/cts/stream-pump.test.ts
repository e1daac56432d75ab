/**
 * The consumer's write of a batch, with stand-in messages and an applier whose effect is a row
 * per message: a redelivery next to its original and a message applied before are applied
 * once and acknowledged, on either store.
 */
import assert from "node:assert/strict";
import type { JsMsg } from "@nats-io/jetstream";
import type { Knex } from "knex";
import type { Applier } from "../../../../runtime/household/cts/applier";
import type { StreamCounters } from "../../../../runtime/household/cts/cts-status";
import { streamNames } from "../../../../runtime/household/cts/cts-streams";
import { StreamPump } from "../../../../runtime/household/cts/stream-pump";
import type { WriteBatch } from "../../../../runtime/platform/db/write-batch";
import { startTestApp, type TestApp } from "../../../support/test-app";

const NAMES = streamNames("pumptest", "tracking.events");

interface Settled {
  acked: string[];
  naked: string[];
}

/** A stand-in for a JetStream message: its bytes are its key; what the pump settles is recorded. */
function message(key: string, seq: number, settled: Settled): JsMsg {
  return {
    data: new TextEncoder().encode(key),
    seq,
    subject: "pumptest.tracking.events",
    info: { deliveryCount: 1 },
    ack: () => settled.acked.push(key),
    nak: () => settled.naked.push(key),
    term: () => settled.naked.push(key),
  } as unknown as JsMsg;
}

describe("the tracking consumer's batch write", function () {
  this.timeout(20_000);
  let t: TestApp;
  let settled: Settled;
  let counters: StreamCounters;

  const applier: Applier<string, string> = {
    decode: (data) => ({ ok: true, value: new TextDecoder().decode(data) }),
    check: () => null,
    key: (k) => k,
    plan: async (k) => k,
    commit: async (trx, plan, batch) => applier.commitMany!(trx, [plan], batch),
    async commitMany(_trx: Knex, plans: readonly string[], batch: WriteBatch) {
      batch.insert(
        "pump_effects",
        plans.map((k) => ({ k })),
      );
      return [];
    },
  };

  const pump = () => new StreamPump(t.app.ctx, NAMES, applier as Applier<unknown, unknown>, counters);
  const effects = async () => (await t.app.ctx.db("pump_effects").select("k").orderBy("id")).map((r: { k: string }) => r.k);
  const markApplied = async (k: string) =>
    void (await t.app.ctx.db("cts_applied").insert({ stream: NAMES.stream, msg_key: k, applied_at: new Date().toISOString() }));

  before(async () => {
    t = await startTestApp();
    await t.app.ctx.db.schema.createTable("pump_effects", (tb) => {
      tb.increments("id").primary();
      tb.string("k", 50).notNullable();
    });
  });
  after(() => t.close());
  beforeEach(async () => {
    settled = { acked: [], naked: [] };
    counters = { received: 0, applied: 0, duplicates: 0, dropped: 0, dead_letters: 0, last_drop: null };
    await t.app.ctx.db("pump_effects").delete();
    await t.app.ctx.db("cts_applied").delete();
  });

  it("applies each message once: a redelivery beside its original and one applied before are acknowledged, not applied again", async () => {
    await markApplied("old");
    const p = pump();
    ["a", "old", "b", "a"].forEach((k, i) => p.push(message(k, i + 1, settled)));
    await p.idle();
    assert.deepEqual(await effects(), ["a", "b"]);
    assert.deepEqual(settled.acked.sort(), ["a", "a", "b", "old"]);
    assert.deepEqual(settled.naked, []);
    assert.equal(counters.applied, 2);
    assert.equal(counters.duplicates, 2);
    // Applied again later (a redelivery after a crash): nothing changes.
    p.push(message("b", 9, settled));
    await p.idle();
    assert.deepEqual(await effects(), ["a", "b"]);
    assert.equal(counters.duplicates, 3);
  });
});
