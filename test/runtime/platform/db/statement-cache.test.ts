/** knex on SQLite reuses a prepared statement per SQL text (issue 29), and stays correct across schema changes. */
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { cachePreparedStatements } from "../../../../runtime/platform/db/store";

describe("SQLite prepared-statement cache", () => {
  it("prepares each SQL text once and drops the least recently used past its size", () => {
    const prepared: string[] = [];
    const conn = { prepare: (sql: string) => (prepared.push(sql), { sql }) };
    cachePreparedStatements(conn, 2);
    const a1 = conn.prepare("select 1");
    conn.prepare("select 2");
    assert.equal(conn.prepare("select 1"), a1, "the same statement object comes back");
    conn.prepare("select 3"); // evicts "select 2", the least recently used
    conn.prepare("select 1");
    conn.prepare("select 2");
    assert.deepEqual(prepared, ["select 1", "select 2", "select 3", "select 2"]);
  });

  it("answers from the changed table after a schema change under a cached statement", () => {
    const db = new Database(":memory:");
    cachePreparedStatements(db);
    db.prepare("create table t (a integer)").run();
    db.prepare("insert into t (a) values (?)").run(1);
    assert.deepEqual(db.prepare("select * from t").all(), [{ a: 1 }]);
    db.prepare("alter table t add column b text").run();
    db.prepare("update t set b = ?").run("x");
    assert.deepEqual(db.prepare("select * from t").all(), [{ a: 1, b: "x" }]);
    db.close();
  });
});
