/**
 * A transaction's independent writes queued and sent together store what the same writes
 * store one by one, on SQLite and on PostgreSQL; on PostgreSQL they cost one statement (one
 * round trip), split only by a second insert into the same table, and the asynchronous commit
 * is set in it.
 */
import assert from "node:assert/strict";
import type { Store } from "../../../../runtime/platform/db/store";
import { WriteBatch } from "../../../../runtime/platform/db/write-batch";
import { openFreshStore } from "../../../support/test-db";

describe("write batches", () => {
  let store: Store;
  let close: () => Promise<void>;
  const statements: string[] = [];
  const onQuery = (q: { sql: string }) => statements.push(q.sql);

  before(async () => {
    // The server's own commit setting, so a batch's asynchronous commit shows against it.
    ({ store, close } = await openFreshStore("empty", { waitForDisk: true }));
    store.db.on("query", onQuery);
  });
  after(async () => {
    store.db.off("query", onQuery);
    await close();
  });
  beforeEach(async () => {
    for (const table of ["wb_a", "wb_b"]) {
      await store.db.schema.dropTableIfExists(table);
      await store.db.schema.createTable(table, (t) => {
        t.increments("id").primary();
        t.string("k", 50).notNullable().unique();
        t.float("n").notNullable();
        t.string("note", 50).nullable();
      });
    }
    await store.db("wb_b").insert([
      { k: "x", n: 1, note: "old" },
      { k: "y", n: 2, note: "old" },
    ]);
    statements.length = 0;
  });

  const rowsOf = async (table: string) =>
    (await store.db(table).select("k", "n", "note").orderBy("id")).map((r: { k: string; n: number; note: string | null }) => ({ ...r, n: Number(r.n) }));
  // The statements that write: not the transaction's own, nor the column types read once per table.
  const written = () => statements.filter((s) => !/^(begin|commit|rollback|savepoint|release)/i.test(s.trim()) && !/information_schema/.test(s));

  it("stores inserts, upserts and updates as if run one by one, in few statements on PostgreSQL", async () => {
    await store.db.transaction(async (trx) => {
      const batch = new WriteBatch(trx);
      batch.insert("wb_a", [
        { k: "a", n: 1.5, note: 'it\'s "quoted" ?' },
        { k: "b", n: -2, note: null },
      ]);
      batch.insert("wb_b", [{ k: "x", n: 10, note: "merged" }], { onConflict: { columns: ["k"], action: "merge" } });
      batch.insert("wb_b", [{ k: "y", n: 20, note: "ignored" }], { onConflict: { columns: ["k"], action: "ignore" } });
      batch.query(
        trx("wb_b")
          .where({ k: "y" })
          .update({ note: trx.raw("cast(? as varchar(50))", ["updated"]) }),
      );
      // A row with undefined goes through knex's builder, as insertRows sends it.
      batch.insert("wb_a", [{ k: "c", n: 3, note: undefined }]);
      assert.equal(written().length, 0, "nothing is sent before run");
      await batch.run();
    });
    const sent = written();
    assert.deepEqual(await rowsOf("wb_a"), [
      { k: "a", n: 1.5, note: 'it\'s "quoted" ?' },
      { k: "b", n: -2, note: null },
      { k: "c", n: 3, note: null },
    ]);
    assert.deepEqual(await rowsOf("wb_b"), [
      { k: "x", n: 10, note: "merged" },
      { k: "y", n: 2, note: "updated" },
    ]);
    // Two parts insert into wb_a: the second waits for the first, so its row gets the later id.
    if (store.dialect === "postgres") assert.equal(sent.length, 2, sent.join("\n"));
  });

  it("is undone with its transaction", async () => {
    await assert.rejects(
      store.db.transaction(async (trx) => {
        const batch = new WriteBatch(trx);
        batch.insert("wb_a", [{ k: "gone", n: 1, note: null }]);
        await batch.run();
        throw new Error("the rest of the transaction failed");
      }),
      /the rest of the transaction failed/,
    );
    assert.deepEqual(await rowsOf("wb_a"), []);
  });

  it("writes thousands of rows in order, in one statement on PostgreSQL", async () => {
    const rows = Array.from({ length: 12_000 }, (_, i) => ({ k: `k${i}`, n: i, note: i % 2 ? null : "even" }));
    await store.db.transaction(async (trx) => {
      const batch = new WriteBatch(trx);
      batch.insert("wb_a", rows);
      await batch.run();
    });
    const sent = written().length;
    const stored = await rowsOf("wb_a");
    assert.equal(stored.length, rows.length);
    assert.deepEqual(stored[11_999], { k: "k11999", n: 11_999, note: null });
    if (store.dialect === "postgres") assert.equal(sent, 1, "an array per column, whatever the rows");
  });

  it("sets the asynchronous commit for its transaction only (PostgreSQL)", async function () {
    if (store.dialect !== "postgres") this.skip();
    const setting = async (trx: typeof store.db) =>
      ((await trx.raw("show synchronous_commit")) as { rows: Array<{ synchronous_commit: string }> }).rows[0].synchronous_commit;
    await store.db.transaction(async (trx) => {
      const batch = new WriteBatch(trx, { asyncCommit: true });
      batch.insert("wb_a", [{ k: "a", n: 1, note: null }]);
      await batch.run();
      assert.equal(await setting(trx), "off");
    });
    await store.db.transaction(async (trx) => {
      await new WriteBatch(trx, { asyncCommit: true }).run();
      assert.equal(await setting(trx), "off", "even with nothing queued");
    });
    assert.equal(await setting(store.db), "on", "the next transaction flushes again");
    assert.equal((await rowsOf("wb_a")).length, 1);
  });
});
