/**
 * How the tests make their PostgreSQL databases. They are thrown away after the file, so a
 * commit need not wait for the disk (`synchronous_commit = off`): on this machine that wait was
 * most of a PostgreSQL test's time. Nothing is weaker for what the tests prove: a kill -9 of a
 * careflow process leaves the server running, and what the server acknowledged stays visible;
 * only a crash of the server itself could lose the last commits, and no test crashes it.
 */
import type { Knex } from "knex";

export interface TestPgOptions {
  /** Keep the server's commit as it is (a test of careflow's own asynchronous commits). */
  waitForDisk?: boolean;
}

export async function createTestPgDatabase(admin: Knex, name: string, template?: string, opts: TestPgOptions = {}): Promise<void> {
  await admin.raw(template ? `create database ${name} template ${template}` : `create database ${name}`);
  // Applies to every session opened on it from now on (a template's own setting is not copied).
  if (!opts.waitForDisk) await admin.raw(`alter database ${name} set synchronous_commit = off`);
}
