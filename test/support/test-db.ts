/**
 * A fresh database for each test app: a new SQLite file, or, when
 * CAREFLOW_TEST_DATABASE_URL names a PostgreSQL server, a new database on it that is
 * dropped when the app closes. `.ci/run` runs the whole suite both ways.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";

export interface TestDatabase {
  dataDir: string;
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

export const testDialect = (): "postgres" | "sqlite" => (process.env.CAREFLOW_TEST_DATABASE_URL ? "postgres" : "sqlite");

export async function freshDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-test-"));
  const server = process.env.CAREFLOW_TEST_DATABASE_URL;
  if (!server) {
    return { dataDir, databaseUrl: undefined, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `careflow_test_${randomBytes(6).toString("hex")}`;
  const admin = knexFactory({ client: "pg", connection: server, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    dataDir,
    databaseUrl: url.toString(),
    drop: async () => {
      const a = knexFactory({ client: "pg", connection: server, pool: { min: 0, max: 1 } });
      await a.raw(`drop database if exists ${name} with (force)`);
      await a.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
