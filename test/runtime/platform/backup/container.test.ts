/**
 * The backup file (platform/backup/container.ts): what goes in comes out, entry by entry, with
 * the manifest readable alone; a cut or damaged file, or one that is no backup, is refused with
 * a message saying so rather than half read. And a PostgreSQL backup without pg_dump says what
 * to install.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import { BackupFileError, readBackupFile, readManifest, writeBackupFile } from "../../../../runtime/platform/backup/container";
import { dumpPostgres, PgToolError } from "../../../../runtime/platform/backup/pg-dump";
import { PG_SERVER } from "../../../support/pg-cluster";

describe("backup file format", function () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-container-"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const big = Buffer.alloc(3_000_000, 7);
  const file = path.join(dir, "one.cfbackup");

  before(async () => {
    const onDisk = path.join(dir, "big.bin");
    fs.writeFileSync(onDisk, big);
    async function* entries() {
      yield { name: "database.sqlite", file: onDisk, size: big.length };
      yield null; // an object gone since it was listed
      yield { name: "media/ab/cd/x.jpg", bytes: Buffer.from("jpeg bytes") };
    }
    await writeBackupFile(file, { format: "careflow-backup", n: 2 }, entries());
  });

  it("reads back the manifest alone, and every entry in order", async () => {
    assert.deepEqual(await readManifest(file), { format: "careflow-backup", n: 2 });
    const got: Array<[string, number, Buffer]> = [];
    await readBackupFile(
      file,
      () => undefined,
      async (h, read) => {
        const chunks: Buffer[] = [];
        await read((c) => void chunks.push(Buffer.from(c)));
        got.push([h.name, h.size, Buffer.concat(chunks)]);
      },
    );
    assert.deepEqual(
      got.map(([n, s]) => [n, s]),
      [
        ["database.sqlite", big.length],
        ["media/ab/cd/x.jpg", 10],
      ],
    );
    assert.ok(got[0][2].equals(big));
    assert.equal(got[1][2].toString(), "jpeg bytes");
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.endsWith(".partial")),
      [],
      "no temporary file left",
    );
  });

  it("refuses a cut file, a damaged one and one that is no backup", async () => {
    const whole = fs.readFileSync(file);
    const cut = path.join(dir, "cut.cfbackup");
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const readAll = (f: string) =>
      readBackupFile(
        f,
        () => undefined,
        async (_h, read) => read(() => undefined),
      );
    await assert.rejects(readAll(cut), (err: unknown) => err instanceof BackupFileError || /unexpected end/.test(String(err)));
    const damaged = path.join(dir, "damaged.cfbackup");
    const flipped = Buffer.from(whole);
    flipped[Math.floor(whole.length / 2)] ^= 0xff;
    fs.writeFileSync(damaged, flipped);
    await assert.rejects(readAll(damaged), BackupFileError);
    const notOne = path.join(dir, "notes.txt");
    fs.writeFileSync(notOne, "hello");
    await assert.rejects(readManifest(notOne), /not a careflow backup/);
  });

  it("says pg_dump is missing, and what to install", async () => {
    const db = knexFactory({ client: "pg", connection: PG_SERVER, pool: { min: 0, max: 1 } });
    try {
      await db.raw("select 1");
    } catch {
      await db.destroy();
      process.stdout.write("\n    SKIPPED: no PostgreSQL server to ask\n");
      return;
    }
    try {
      await db.raw("create temporary table kv (key text, value text, updated_at text)");
      await assert.rejects(
        dumpPostgres(db, PG_SERVER, path.join(dir, "x.pgdump"), { secretKv: [], excludeData: [], pgDump: "pg_dump-not-installed" }),
        (err: unknown) => err instanceof PgToolError && /pg_dump-not-installed is not installed.*postgresql-client/.test(err.message),
      );
    } finally {
      await db.destroy();
    }
  });
});
