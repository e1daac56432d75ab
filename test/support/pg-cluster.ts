/**
 * One PostgreSQL database several in-process instances share (the cluster tests): made fresh on
 * the machine's server (CAREFLOW_TEST_DATABASE_URL, else the local one) and dropped afterwards.
 * A suite skips, saying so, only when no server answers.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import { openStore, type Store } from "../../runtime/platform/db/store";
import { skipForMissingService } from "./missing-service";
import { createTestPgDatabase } from "./pg-database";

export const PG_SERVER = process.env.CAREFLOW_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface SharedPg {
  url: string;
  dataDir: string;
  /** A store of its own (its own connection pool) on the shared database, as another instance would have. */
  open(): Promise<Store>;
  drop(): Promise<void>;
}

/**
 * For the suites of several instances that run only in the PostgreSQL pass (the SQLite pass,
 * without CAREFLOW_TEST_DATABASE_URL, skips them saying so, not to run them twice on 2 cores).
 */
export function requirePgPass(ctx: Mocha.Context): void {
  if (process.env.CAREFLOW_TEST_DATABASE_URL) return;
  process.stdout.write("\n    SKIPPED: several instances need PostgreSQL (run with CAREFLOW_TEST_DATABASE_URL)\n");
  ctx.skip();
}

export async function sharedPg(ctx: Mocha.Context): Promise<SharedPg> {
  const admin = knexFactory({ client: "pg", connection: PG_SERVER, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 3000 });
  const name = `careflow_cluster_${randomBytes(6).toString("hex")}`;
  try {
    await createTestPgDatabase(admin, name);
  } catch (err) {
    await admin.destroy();
    skipForMissingService(ctx, `no PostgreSQL at ${PG_SERVER} (${(err as Error).message})`);
  }
  await admin.destroy();
  const u = new URL(PG_SERVER);
  u.pathname = `/${name}`;
  const url = u.toString();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-cluster-"));
  const stores: Store[] = [];
  return {
    url,
    dataDir,
    open: async () => {
      const s = await openStore(url, dataDir);
      stores.push(s);
      return s;
    },
    drop: async () => {
      for (const s of stores) await s.close().catch(() => undefined);
      const a = knexFactory({ client: "pg", connection: PG_SERVER, pool: { min: 0, max: 1 } });
      await a.raw(`drop database if exists ${name} with (force)`);
      await a.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
