/**
 * Upgrades that cannot break a home (issue 46 §3), on the store CI's pass runs on: a migration
 * that fails leaves the store exactly as it was and says which failed and how to go back; a
 * store that a newer careflow upgraded is refused at `npm start`, naming both versions.
 */
import assert from "node:assert/strict";
import knexFactory, { type Knex } from "knex";
import { migrationSource } from "../../../../runtime/platform/db/migrations";
import { openStore, storeConfig } from "../../../../runtime/platform/db/store";
import { StoreUpgradeError } from "../../../../runtime/platform/db/schema-upgrade";
import { packageInfo } from "../../../../runtime/platform/config/app-info";
import { freshDatabase, type TestDatabase } from "../../../support/test-db";
import { runToExit } from "../../../support/service-process";
import fs from "node:fs";
import path from "node:path";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { systemClock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { readManifest } from "../../../../runtime/platform/backup/container";
import type { BackupManifest } from "../../../../runtime/platform/backup/manifest";
import { backupBeforeUpgrade } from "../../../../runtime/app/backup/backup.service";

/** The real migrations and one more, `999_broken`, which makes a table and a row, then fails. */
const withBroken: Knex.MigrationSource<string> = {
  getMigrations: async (ext) => [...(await migrationSource.getMigrations(ext)), "999_broken"],
  getMigrationName: (m) => m,
  getMigration: async (m) =>
    m === "999_broken"
      ? {
          up: async (knex: Knex) => {
            await knex.schema.createTable("half_made", (t) => t.increments("id"));
            await knex("half_made").insert({});
            await knex.raw("select * from no_such_table");
          },
          down: async () => undefined,
        }
      : migrationSource.getMigration(m),
};

const latest = async () => (await migrationSource.getMigrations([])).sort().pop() as string;

describe("store upgrades", function () {
  this.timeout(60_000);
  let db: TestDatabase;
  beforeEach(async () => {
    db = await freshDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  async function failedUpgrade(): Promise<StoreUpgradeError> {
    const err = await openStore(db.databaseUrl, db.dataDir, { migrations: withBroken }).then(
      () => assert.fail("the upgrade with a failing migration was not refused"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof StoreUpgradeError, String(err));
    return err;
  }

  it("rolls back a failed upgrade whole, says which migration failed and that nothing changed, and the store still opens", async () => {
    const current = await openStore(db.databaseUrl, db.dataDir);
    const now = new Date().toISOString();
    await current.db("rooms").insert({ name: "kitchen", created_at: now, updated_at: now });
    await current.close();

    const err = await failedUpgrade();
    assert.match(err.message, /failed in migration 999_broken/);
    assert.match(err.message, new RegExp(`Nothing was changed: the store is still at schema ${await latest()}`));
    assert.match(err.message, /restore the backup taken before the upgrade/);

    const after = await openStore(db.databaseUrl, db.dataDir);
    try {
      assert.equal(await after.db.schema.hasTable("half_made"), false, "the failed migration's table is gone");
      assert.equal((await after.db("knex_migrations").where({ name: "999_broken" })).length, 0);
      assert.deepEqual(
        (await after.db("rooms").select("name")).map((r) => r.name),
        ["kitchen"],
        "the household is as it was",
      );
    } finally {
      await after.close();
    }
  });

  it("a new store whose first migrations fail is left empty, not half made", async () => {
    const err = await failedUpgrade();
    assert.match(err.message, /from schema \(new\)/);
    assert.match(err.message, /Nothing was changed/);
    const fresh = await openStore(db.databaseUrl, db.dataDir);
    try {
      assert.equal(await fresh.db.schema.hasTable("rooms"), true, "a later start makes it whole");
    } finally {
      await fresh.close();
    }
  });

  describe("the backup before an upgrade", () => {
    const OLD = "041_chat_relatives";
    const parts = (keep = 3) => ({
      clock: systemClock,
      log: createLogger("silent"),
      settings: buildSettings({ backup: { schedule: null, keep_before_upgrade: keep } }),
      settingsFile: undefined,
      dataDir: db.dataDir,
    });
    const backups = () => fs.readdirSync(path.join(db.dataDir, "backups")).filter((n) => n.endsWith("-before-upgrade.cfbackup"));

    /** A household's store at an older careflow's schema: migrated up to OLD, a room in it. */
    async function olderStore(): Promise<void> {
      const raw = knexFactory(storeConfig(db.databaseUrl, db.dataDir).config);
      try {
        while ((await raw.migrate.currentVersion({ migrationSource } as Knex.MigratorConfig)) !== OLD.slice(0, 3)) await raw.migrate.up({ migrationSource });
        const now = new Date().toISOString();
        await raw("rooms").insert({ name: "kitchen", created_at: now, updated_at: now });
      } finally {
        await raw.destroy();
      }
    }

    it("is taken of the store as it was, and a failed upgrade names it with the restore command", async () => {
      await olderStore();
      const err = await openStore(db.databaseUrl, db.dataDir, {
        migrations: withBroken,
        beforeUpgrade: (knex, dialect) => backupBeforeUpgrade(parts(), knex, dialect),
      }).then(
        () => assert.fail("not refused"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof StoreUpgradeError, String(err));
      const [file] = backups();
      assert.ok(file, "a backup was taken before the upgrade");
      assert.match(err.message, new RegExp(`Nothing was changed: the store is still at schema ${OLD}`));
      assert.ok(err.message.includes(`npm run restore -- ${path.join(db.dataDir, "backups", file)}`), err.message);
      const manifest = await readManifest<BackupManifest>(path.join(db.dataDir, "backups", file));
      assert.equal(manifest.schema, OLD, "the backup holds the store as it was");
      assert.equal(manifest.made_by, "upgrade");
      assert.equal(manifest.counts.rooms, 1);
    });

    it("comes before every upgrade and the last ones are kept by count; a new store needs none", async () => {
      await olderStore();
      const store = await openStore(db.databaseUrl, db.dataDir, { beforeUpgrade: (knex, dialect) => backupBeforeUpgrade(parts(1), knex, dialect) });
      await store.close();
      assert.equal(backups().length, 1);
      // Opened again at the latest schema: no upgrade, no backup.
      const again = await openStore(db.databaseUrl, db.dataDir, { beforeUpgrade: () => assert.fail("no upgrade, no backup") });
      await again.close();
      assert.equal(backups().length, 1);
    });

    it("refuses to upgrade when the backup fails, and changes nothing", async () => {
      await olderStore();
      const err = await openStore(db.databaseUrl, db.dataDir, {
        beforeUpgrade: async () => {
          throw new Error("pg_dump is not installed");
        },
      }).then(
        () => assert.fail("not refused"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof StoreUpgradeError, String(err));
      assert.match(err.message, /the backup taken before it failed: pg_dump is not installed\. Nothing was changed\..*backup\.before_upgrade to false/);
      const raw = knexFactory(storeConfig(db.databaseUrl, db.dataDir).config);
      try {
        const names = (await raw("knex_migrations").select("name")).map((r: { name: string }) => r.name).sort();
        assert.equal(names[names.length - 1], OLD);
      } finally {
        await raw.destroy();
      }
    });

    it("is not taken of a new store", async () => {
      const store = await openStore(db.databaseUrl, db.dataDir, { beforeUpgrade: () => assert.fail("a new store has nothing to back up") });
      await store.close();
    });
  });

  it("refuses at npm start a store a newer careflow upgraded, naming both versions, and changes nothing", async () => {
    const store = await openStore(db.databaseUrl, db.dataDir);
    const batch = ((await store.db("knex_migrations").max("batch as b").first()) as { b: number }).b;
    await store.db("knex_migrations").insert({ name: "099_later_schema", batch: batch + 1, migration_time: new Date().toISOString() });
    await store.db("careflow_versions").insert({ version: "9.1.0", schema: "099_later_schema", at: new Date().toISOString() });
    await store.close();

    const res = await runToExit({
      CAREFLOW_DATA_DIR: db.dataDir,
      CAREFLOW_DEMO: "0",
      PORT: "0",
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    });
    assert.equal(res.code, 2, res.stderr);
    assert.match(res.stderr, /^careflow: the store at .* was upgraded by a newer careflow \(careflow 9\.1\.0, schema 099_later_schema\)/m);
    assert.match(res.stderr, new RegExp(`than this one \\(careflow ${packageInfo().version.replace(/\./g, "\\.")}, schema ${await latest()}\\)`));
    assert.doesNotMatch(res.stderr, /\n\s+at /, "said plainly, without a stack");

    const raw = knexFactory(storeConfig(db.databaseUrl, db.dataDir).config);
    try {
      const versions = await raw("careflow_versions").orderBy("id").select("version");
      assert.equal(versions[versions.length - 1].version, "9.1.0", "the older careflow recorded nothing");
    } finally {
      await raw.destroy();
    }
  });
});
