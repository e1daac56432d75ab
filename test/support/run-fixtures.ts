/**
 * mocha's global fixtures for `npm test` (loaded through .mocharc.json's `require`; they run
 * once, in the main process, also with --parallel, whose workers inherit the environment they
 * set): one migrated template database per run, which each test copies instead of running every
 * migration again, and at the end whatever is left of the run's PostgreSQL databases dropped.
 * The template is migrated from empty, so every run still applies the whole migration history
 * on the store under test.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import type Mocha from "mocha";
import { openStore } from "../../runtime/platform/db/store";
import { browserSlotHooks } from "./browser-slots";
import { machineSoloHooks } from "./machine-solo";
import { setTimingsFile, timingHooks } from "./file-timings";
import { backgroundDropsDone } from "./test-db";
import { failIfTheEndHangs, openHandleHooks } from "./open-handles";
import { runId, runTemplate, setRun, templateDatabaseName, testDatabasePrefix } from "./test-run";
import { createTestPgDatabase } from "./pg-database";

const pgServer = (): string | undefined => process.env.CAREFLOW_TEST_DATABASE_URL;

const admin = (server: string): Knex => knexFactory({ client: "pg", connection: server, pool: { min: 0, max: 4 } });

/** Per file in each parallel worker: its time, and what it left running (which fails it). */
/** A file's queued drops may wait behind others' on a loaded server: they get time to finish. */
async function dropsDone(this: Mocha.Context): Promise<void> {
  this.timeout(120_000);
  await backgroundDropsDone();
}

export const mochaHooks: Mocha.RootHookObject = {
  // A file waits while another wants the machine alone, and a browser file for a slot, first,
  // so its time is its own work, not the wait.
  beforeAll: [machineSoloHooks.beforeAll, browserSlotHooks.beforeAll, timingHooks.beforeAll, openHandleHooks.beforeAll] as Mocha.Func[],
  // A file's test databases are dropped in the background; the drops are the file's own work.
  afterAll: [timingHooks.afterAll, dropsDone, openHandleHooks.afterAll, browserSlotHooks.afterAll, machineSoloHooks.afterAll] as Mocha.Func[],
};

export async function mochaGlobalSetup(): Promise<void> {
  const run = randomBytes(4).toString("hex");
  setTimingsFile(path.join(os.tmpdir(), `careflow-timings-${run}.jsonl`));
  const server = pgServer();
  if (!server) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-template-"));
    const store = await openStore(undefined, dir);
    await store.close(); // closing checkpoints the WAL into the file, so the file alone is the copy
    setRun(run, path.join(dir, "careflow.db"));
    return;
  }
  const name = templateDatabaseName(run);
  const a = admin(server);
  try {
    await createTestPgDatabase(a, name);
  } finally {
    await a.destroy();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  const store = await openStore(url.toString(), os.tmpdir());
  await store.close(); // a template takes no connections while it is copied
  setRun(run, name);
}

export async function mochaGlobalTeardown(): Promise<void> {
  failIfTheEndHangs();
  const run = runId();
  const template = runTemplate();
  if (!run || !template) return;
  fs.rmSync(path.join(os.tmpdir(), `careflow-timings-${run}.jsonl`), { force: true });
  const server = pgServer();
  if (!server) {
    fs.rmSync(path.dirname(template), { recursive: true, force: true });
    return;
  }
  const a = admin(server);
  try {
    const rows: { datname: string }[] = (await a.raw("select datname from pg_database where starts_with(datname, ?)", [testDatabasePrefix(run)])).rows;
    await Promise.all(rows.map((r) => a.raw(`drop database if exists ${r.datname} with (force)`)));
    await a.raw(`drop database if exists ${template} with (force)`);
  } finally {
    await a.destroy();
  }
}
