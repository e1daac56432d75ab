/**
 * A fresh database for each test app: a new SQLite file, or, when
 * CAREFLOW_TEST_DATABASE_URL names a PostgreSQL server, a new database on it. `.ci/run` runs
 * the whole suite both ways.
 *
 * `freshDatabase` is empty (the migration tests build their own history on it);
 * `migratedDatabase` is already at the latest schema, copied from the run's template
 * (`run-fixtures.ts`) when `npm test` made one: a copy costs a tenth of running every
 * migration again. Each DROP DATABASE forces a checkpoint (a second or more on a busy machine),
 * so within such a run a closed PostgreSQL database is dropped in the background and the test
 * goes on; outside one (a single file run with --no-config) the close waits for the drop.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import { migrationSource } from "../../runtime/platform/db/migrations";
import { openStore, storeConfig, type Store } from "../../runtime/platform/db/store";
import { runId, runTemplate, testDatabasePrefix } from "./test-run";
import { createTestPgDatabase, type TestPgOptions } from "./pg-database";

export interface TestDatabase {
  dataDir: string;
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

export const testDialect = (): "postgres" | "sqlite" => (process.env.CAREFLOW_TEST_DATABASE_URL ? "postgres" : "sqlite");

/** An empty database. */
export function freshDatabase(opts: TestPgOptions = {}): Promise<TestDatabase> {
  return newDatabase(undefined, opts);
}

/** A database at the latest schema, as `openStore` leaves it. */
export async function migratedDatabase(): Promise<TestDatabase> {
  const template = runTemplate();
  if (template) return newDatabase(template);
  const db = await newDatabase(undefined);
  const knex = knexFactory(storeConfig(db.databaseUrl, db.dataDir).config);
  try {
    await knex.migrate.latest({ migrationSource });
  } finally {
    await knex.destroy();
  }
  return db;
}

/** `template`: the run's migrated SQLite file or PostgreSQL database to copy. */
async function newDatabase(template: string | undefined, opts: TestPgOptions = {}): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-test-"));
  const removeDir = async () => fs.rmSync(dataDir, { recursive: true, force: true });
  const server = process.env.CAREFLOW_TEST_DATABASE_URL;
  if (!server) {
    if (template) fs.copyFileSync(template, path.join(dataDir, "careflow.db"));
    return { dataDir, databaseUrl: undefined, drop: removeDir };
  }
  const name = `${testDatabasePrefix()}${randomBytes(6).toString("hex")}`;
  const admin = knexFactory({ client: "pg", connection: server, pool: { min: 0, max: 1 } });
  await createTestPgDatabase(admin, name, template, opts);
  await admin.destroy();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const inRun = runId() !== undefined;
  return {
    dataDir,
    databaseUrl: url.toString(),
    drop: async () => {
      if (inRun) dropLater(server, name);
      else await dropDatabase(server, name);
      await removeDir();
    },
  };
}

async function dropDatabase(server: string, name: string): Promise<void> {
  const a = knexFactory({ client: "pg", connection: server, pool: { min: 0, max: 1 } });
  try {
    await a.raw(`drop database if exists ${name} with (force)`);
  } finally {
    await a.destroy();
  }
}

const toDrop: string[] = [];
let dropping: Promise<void> | null = null;

/** Drops in the background, one at a time, while the tests go on; the run's teardown drops what is left. */
function dropLater(server: string, name: string): void {
  toDrop.push(name);
  if (dropping) return;
  dropping = (async () => {
    for (let next = toDrop.shift(); next; next = toDrop.shift()) await dropDatabase(server, next).catch(() => undefined);
    dropping = null;
  })();
}

/** Resolves once the background drops are done: a file's drops end with the file, not after it. */
export async function backgroundDropsDone(): Promise<void> {
  while (dropping) await dropping;
}

/**
 * The store on a new database, empty (freshDatabase) or at the latest schema
 * (migratedDatabase), and how to close it and drop the database.
 */
export async function openFreshStore(schema: "empty" | "migrated" = "empty", opts: TestPgOptions = {}): Promise<{ store: Store; close: () => Promise<void> }> {
  const fresh = schema === "migrated" ? await migratedDatabase() : await freshDatabase(opts);
  const store = await openStore(fresh.databaseUrl, fresh.dataDir);
  return {
    store,
    close: async () => {
      await store.close();
      await fresh.drop();
    },
  };
}
