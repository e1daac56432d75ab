/**
 * A prepared read (issue 29) answers what the same knex query would, and never reads a
 * transaction's uncommitted rows: on SQLite it waits for the connection like any query.
 */
import assert from "node:assert/strict";
import type { Store } from "../../../../runtime/platform/db/store";
import { preparedRead } from "../../../../runtime/platform/db/prepared-read";
import { openFreshStore } from "../../../support/test-db";

interface Row {
  id: number;
  name: string;
}

const listRooms = preparedRead<Row>((db) => db<Row>("rooms").select("id", "name").orderBy("id"));
const addRoom = (store: Store, name: string) => store.db("rooms").insert({ name, name_key: name, created_at: "t", updated_at: "t" });
const viaKnex = (store: Store) => store.db<Row>("rooms").select("id", "name").orderBy("id");

describe("prepared reads", () => {
  let store: Store;
  let close: () => Promise<void>;

  beforeEach(async () => ({ store, close } = await openFreshStore()));
  afterEach(() => close());

  it("answers the rows knex would, and sees each write at once", async () => {
    assert.deepEqual(await listRooms(store.db), []);
    await addRoom(store, "kitchen");
    await addRoom(store, "bedroom");
    assert.deepEqual(await listRooms(store.db), await viaKnex(store));
    assert.deepEqual(
      (await listRooms(store.db)).map((r) => r.name),
      ["kitchen", "bedroom"],
    );
    await store.db("rooms").where({ name: "kitchen" }).delete();
    assert.deepEqual(
      (await listRooms(store.db)).map((r) => r.name),
      ["bedroom"],
    );
  });

  it("does not see a transaction's rows before it commits, nor after it rolls back", async () => {
    await addRoom(store, "kitchen");
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const started = new Promise<void>((r) => (inside = r));
    const tx = store.db
      .transaction(async (trx) => {
        await trx("rooms").insert({ name: "cellar", name_key: "cellar", created_at: "t", updated_at: "t" });
        inside();
        await held;
        throw new Error("rolled back");
      })
      .catch(() => undefined);
    await started;
    const during = listRooms(store.db);
    release();
    await tx;
    assert.deepEqual(
      (await during).map((r) => r.name),
      ["kitchen"],
    );
    assert.deepEqual(
      (await listRooms(store.db)).map((r) => r.name),
      ["kitchen"],
    );
  });

  it("answers inside a transaction what the transaction sees", async () => {
    await store.db.transaction(async (trx) => {
      await trx("rooms").insert({ name: "attic", name_key: "attic", created_at: "t", updated_at: "t" });
      assert.deepEqual(
        (await listRooms(trx)).map((r) => r.name),
        ["attic"],
      );
    });
  });
});
