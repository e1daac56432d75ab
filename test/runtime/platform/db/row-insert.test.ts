/**
 * Multi-row inserts with their statement kept per shape store exactly what knex's insert
 * stores, on SQLite and on PostgreSQL: the values, the order, conflicts skipped or merged,
 * the returned keys, batches larger than one statement, and rows knex must handle itself.
 */
import assert from "node:assert/strict";
import type { Knex } from "knex";
import type { Store } from "../../../../runtime/platform/db/store";
import { insertRows } from "../../../../runtime/platform/db/row-insert";
import { openFreshStore } from "../../../support/test-db";

interface Stored {
  id: number;
  k: string;
  n: number;
  note: string | null;
  qty: number;
}

describe("row inserts", () => {
  let store: Store;
  let close: () => Promise<void>;
  const read = async (table: string): Promise<Omit<Stored, "id">[]> =>
    ((await store.db<Stored>(table).select("*").orderBy("id")) as Stored[]).map(({ k, n, note, qty }) => ({ k, n: Number(n), note, qty: Number(qty) }));

  before(async () => ({ store, close } = await openFreshStore()));
  after(() => close());
  beforeEach(async () => {
    for (const table of ["rows_fast", "rows_knex"]) {
      await store.db.schema.dropTableIfExists(table);
      await store.db.schema.createTable(table, (t) => {
        t.increments("id").primary();
        t.string("k", 50).notNullable().unique();
        t.float("n").notNullable();
        t.string("note", 50).nullable();
        t.integer("qty").notNullable().defaultTo(7);
      });
    }
  });

  it("stores the rows, in their order, as knex's insert does", async () => {
    const rows = [
      { k: "a", n: 1.5, note: 'it\'s "quoted" ?', qty: 1 },
      { k: "b", n: -2, note: null, qty: 0 },
      { k: "c", n: 0.25, note: "ünïcode ✓", qty: 3 },
      // What an array literal must escape or could mistake for its own syntax.
      { k: "d", n: 1e-7, note: 'back\\slash, {brace} "NULL"', qty: 4 },
      { k: "e", n: 3, note: "NULL", qty: 5 },
      // Written bare when nothing in them needs quotes; these do.
      { k: "f", n: 1e21, note: "null", qty: 6 },
      { k: "g", n: -0.5, note: "", qty: 7 },
      { k: "h", n: 2, note: " padded ", qty: 8 },
      { k: "i", n: 2, note: "2026-11-28T17:52:32.759Z", qty: 9 },
    ];
    await insertRows(store.db, "rows_fast", rows);
    await store.db("rows_knex").insert(rows);
    assert.deepEqual(await read("rows_fast"), await read("rows_knex"));
    assert.deepEqual(
      (await read("rows_fast")).map((r) => r.k),
      ["a", "b", "c", "d", "e", "f", "g", "h", "i"],
    );
  });

  it("writes a batch larger than one statement allows, all of it and in order", async () => {
    const rows = Array.from({ length: 1234 }, (_, i) => ({ k: `key-${i}`, n: i / 3, note: i % 2 ? null : `note ${i}`, qty: i }));
    await insertRows(store.db, "rows_fast", rows);
    const stored = await read("rows_fast");
    assert.equal(stored.length, 1234);
    assert.deepEqual(
      stored.map((r) => r.k),
      rows.map((r) => r.k),
    );
  });

  it("skips rows whose key exists and returns the keys it wrote", async () => {
    await insertRows(store.db, "rows_fast", [{ k: "old", n: 1, note: "first", qty: 1 }]);
    const returned = await insertRows(
      store.db,
      "rows_fast",
      [
        { k: "old", n: 2, note: "second", qty: 2 },
        { k: "new", n: 3, note: null, qty: 3 },
      ],
      { onConflict: { columns: ["k"], action: "ignore" }, returning: "k" },
    );
    assert.deepEqual(
      returned.map((r) => r.k),
      ["new"],
    );
    assert.deepEqual(await read("rows_fast"), [
      { k: "old", n: 1, note: "first", qty: 1 },
      { k: "new", n: 3, note: null, qty: 3 },
    ]);
  });

  it("merges rows whose key exists into the stored row", async () => {
    await insertRows(store.db, "rows_fast", [{ k: "x", n: 1, note: "first", qty: 1 }]);
    await insertRows(store.db, "rows_fast", [{ k: "x", n: 9, note: null, qty: 4 }], { onConflict: { columns: ["k"], action: "merge" } });
    assert.deepEqual(await read("rows_fast"), [{ k: "x", n: 9, note: null, qty: 4 }]);
  });

  it("leaves rows with a missing or undefined column to knex, and stores what knex's insert stores", async () => {
    const rows = [
      { k: "p", n: 1, note: undefined, qty: 2 },
      { k: "q", n: 2, qty: 3 },
      { k: "r", n: 3, note: "three", qty: 4 },
    ];
    await insertRows(store.db, "rows_fast", rows);
    await store.db("rows_knex").insert(rows);
    assert.deepEqual(await read("rows_fast"), await read("rows_knex"));
    assert.deepEqual(
      (await read("rows_fast")).map((r) => r.note),
      [null, null, "three"],
    );
  });

  it("refuses to write through a transaction that already ended, as knex does", async () => {
    let ended: Knex.Transaction | undefined;
    await store.db.transaction(async (trx) => {
      ended = trx;
    });
    await assert.rejects(insertRows(ended!, "rows_fast", [{ k: "late", n: 1, note: null, qty: 1 }]), /already complete/);
    assert.deepEqual(await read("rows_fast"), []);
  });

  it("writes nothing for no rows", async () => {
    assert.deepEqual(await insertRows(store.db, "rows_fast", [], { returning: "k" }), []);
    assert.deepEqual(await read("rows_fast"), []);
  });
});
