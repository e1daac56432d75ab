/**
 * Retention's delete, a few thousand rows per statement: every row older than the cutoff goes
 * and no newer one, the count is right, and the thread takes turns at other work while a
 * large prune runs (one statement held SQLite's only connection, and the service's thread,
 * until all of it was done). On SQLite or PostgreSQL.
 */
import assert from "node:assert/strict";
import type { Store } from "../../../../runtime/platform/db/store";
import { deleteBefore } from "../../../../runtime/platform/db/delete-before";
import { insertRows } from "../../../../runtime/platform/db/row-insert";
import { openFreshStore } from "../../../support/test-db";

const OLD = 12_345;
const NEW = 10;
const CUTOFF = "2026-11-01T00:00:00.000Z";

describe("deleting rows older than a cutoff", function () {
  this.timeout(60_000);
  let store: Store;
  let close: () => Promise<void>;

  before(async () => ({ store, close } = await openFreshStore()));
  after(() => close());
  beforeEach(async () => {
    await store.db.schema.dropTableIfExists("kept_rows");
    await store.db.schema.createTable("kept_rows", (t) => {
      t.string("k", 32).primary();
      t.string("at", 32).notNullable().index();
    });
    const old = Array.from({ length: OLD }, (_, i) => ({ k: `old${i}`, at: new Date(Date.parse(CUTOFF) - 1000 - i * 1000).toISOString() }));
    const recent = Array.from({ length: NEW }, (_, i) => ({ k: `new${i}`, at: new Date(Date.parse(CUTOFF) + i * 1000).toISOString() }));
    await insertRows(store.db, "kept_rows", [...old, ...recent]);
  });

  const left = async () => (await store.db("kept_rows").select("k").orderBy("k")).map((r: { k: string }) => r.k);

  it("deletes every row older than the cutoff and none newer, and says how many", async () => {
    assert.equal(await deleteBefore(store.db, "kept_rows", "at", CUTOFF, { chunk: 5000 }), OLD);
    assert.deepEqual(
      await left(),
      Array.from({ length: NEW }, (_, i) => `new${i}`),
    );
    assert.equal(await deleteBefore(store.db, "kept_rows", "at", CUTOFF, { chunk: 5000 }), 0, "nothing left to delete");
  });

  it("lets the thread take turns at other work while a large prune runs", async () => {
    // What else the service does (requests, rule steps, tracking batches) gets a turn between statements.
    let turns = 0;
    let pruning = true;
    const tick = () => {
      if (!pruning) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    assert.equal(await deleteBefore(store.db, "kept_rows", "at", CUTOFF, { chunk: 1000 }), OLD);
    pruning = false;
    assert.ok(turns >= Math.floor(OLD / 1000), `${turns} turns while ${Math.ceil(OLD / 1000)} statements ran`);
    assert.equal((await left()).length, NEW);
  });

  it("stops between two statements when the service stops, leaving the rest for the next prune", async () => {
    const stopping = new AbortController();
    const prune = deleteBefore(store.db, "kept_rows", "at", CUTOFF, { chunk: 1000, signal: stopping.signal });
    stopping.abort();
    assert.equal(await prune, 1000, "the statement under way finishes; no other starts");
    assert.equal((await left()).length, OLD - 1000 + NEW);
    assert.equal(await deleteBefore(store.db, "kept_rows", "at", CUTOFF), OLD - 1000);
  });
});
