/**
 * Migration 012 on a store that already holds rooms and templates: every row gets its name
 * key; rows that were one name apart from case or Unicode spelling (allowed before, on
 * SQLite) are not merged and do not fail the migration silently: the oldest keeps its name,
 * the others get a free ' (n)' suffix and a warning. Rolling back drops the key and keeps
 * the rows; migrating again finds nothing left to rename.
 */
import assert from "node:assert/strict";
import knexFactory, { type Knex } from "knex";
import { nameKey } from "../../../../runtime/platform/core/name-key";
import { migrationSource } from "../../../../runtime/platform/db/migrations";
import { storeConfig } from "../../../../runtime/platform/db/store";
import { freshDatabase, type TestDatabase } from "../../../support/test-db";

const T = "2026-01-01T08:00:00.000Z";
const config = { migrationSource } as Knex.MigratorConfig;

describe("migration 012: names unique by one key", () => {
  let fresh: TestDatabase;
  let db: Knex;
  const warnings: string[] = [];

  const migrateUpCapturingWarnings = async (): Promise<void> => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.join(" "));
    try {
      await db.migrate.up({ migrationSource });
    } finally {
      console.warn = warn;
    }
  };
  const rooms = async () => (await db("rooms").orderBy("id").select("id", "name")).map((r) => ({ id: Number(r.id), name: r.name as string }));

  before(async () => {
    fresh = await freshDatabase();
    db = knexFactory(storeConfig(fresh.databaseUrl, fresh.dataDir).config);
    // Up to 011: the store as the previous release left it.
    while (!(await db.migrate.currentVersion(config)).startsWith("011")) await db.migrate.up({ migrationSource });
    await db("rooms").insert([
      { id: 1, name: "Küche", created_at: T, updated_at: T },
      { id: 2, name: "Flur", created_at: T, updated_at: T },
      { id: 3, name: "KÜCHE", created_at: T, updated_at: T },
      { id: 4, name: "Ku\u0308che", created_at: T, updated_at: T },
      { id: 5, name: "KÜCHE (2)", created_at: T, updated_at: T },
    ]);
    await db("sensors").insert({ sensor_id: "kitchen_pir", name: "Kitchen presence", sensor_type: "presence", room_id: 3, created_at: T, updated_at: T });
    const template = { description: "", regions_json: "[]", background_hash: "0".repeat(64), created_at: T, updated_at: T };
    await db("eink_templates").insert([
      { ...template, id: 1, name: "Morgenkarte" },
      { ...template, id: 2, name: "MORGENKARTE" },
    ]);
    await migrateUpCapturingWarnings();
  });
  after(async () => {
    await db.destroy();
    await fresh.drop();
  });

  it("keeps the oldest of a name, suffixes the others with the first free ' (n)', and says so", async () => {
    assert.deepEqual(await rooms(), [
      { id: 1, name: "Küche" },
      { id: 2, name: "Flur" },
      { id: 3, name: "KÜCHE (3)" },
      { id: 4, name: "Ku\u0308che (4)" },
      { id: 5, name: "KÜCHE (2)" },
    ]);
    assert.deepEqual(
      (await db("eink_templates").orderBy("id").select("name")).map((r) => r.name),
      ["Morgenkarte", "MORGENKARTE (2)"],
    );
    assert.equal(warnings.length, 3, warnings.join("\n"));
    assert.match(warnings[0], /room 3 'KÜCHE' is the same name as room 1 'Küche' .*renamed to 'KÜCHE \(3\)'/);
    assert.match(warnings[2], /template 2 'MORGENKARTE' is the same name as template 1 'Morgenkarte' .*renamed to 'MORGENKARTE \(2\)'/);
    assert.equal(Number((await db("sensors").where({ sensor_id: "kitchen_pir" }).first()).room_id), 3, "sensors keep their room");
  });

  it("fills every row's key from its name, and the key is unique", async () => {
    for (const table of ["rooms", "eink_templates"]) {
      for (const r of await db(table).select("name", "name_key")) assert.equal(r.name_key, nameKey(r.name), `${table} '${r.name}'`);
    }
    await assert.rejects(db("rooms").insert({ id: 99, name: "KUECHE?", name_key: "küche", created_at: T, updated_at: T }));
    await assert.rejects(
      db("eink_templates").insert({ id: 99, name: "x", name_key: "morgenkarte", background_hash: "0".repeat(64), created_at: T, updated_at: T }),
    );
  });

  it("rolls back to the rooms and templates without a key column, rows and references kept", async () => {
    await db.migrate.down({ migrationSource });
    assert.equal(await db.schema.hasColumn("rooms", "name_key"), false);
    assert.equal(await db.schema.hasColumn("eink_templates", "name_key"), false);
    assert.equal((await rooms()).length, 5);
    assert.equal(Number((await db("sensors").where({ sensor_id: "kitchen_pir" }).first()).room_id), 3);
    // Without the key, case variants can be stored again (as before 012) ...
    await db("rooms").insert({ id: 6, name: "FLUR", created_at: T, updated_at: T });
    warnings.length = 0;
    await migrateUpCapturingWarnings();
    // ... and migrating up again renames only those.
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.deepEqual((await rooms()).slice(-1), [{ id: 6, name: "FLUR (2)" }]);
    assert.equal((await db("rooms").where({ id: 6 }).first()).name_key, "flur (2)");
  });
});
