/**
 * Restoring a backup into the store the environment names (docs/backups.md): refused while a
 * service uses that store, into a store that already holds a household unless `force`, from a
 * backup of the other kind of store, and from a newer careflow's schema. The file is read
 * through once to check it (gzip's checksum, every entry) before anything is touched, then
 * again to restore: the database first, then the `kv` rows, then each media object through the
 * media store the settings choose (files, the shared table or an S3 bucket). The store is then
 * migrated to this careflow's schema, as a start would.
 */
import { kvPut } from "../../platform/db/kv";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import type { Settings } from "../../../settings";
import { isoAt, type Clock } from "../../platform/core/clock";
import { openStore, storeConfig, STORE_APPLICATION_NAME } from "../../platform/db/store";
import { readBackupFile, readManifest, BackupFileError } from "../../platform/backup/container";
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, ENTRY, knownMigrations, type BackupManifest } from "../../platform/backup/manifest";
import { restorePostgres, type KvRow } from "../../platform/backup/pg-dump";
import { householdRows, postgresInUse, sqliteInUse } from "../../platform/backup/store-state";
import { mediaObjects } from "../../household/media/media-objects";

/** Why a restore was refused or failed, in words for the person at the terminal. */
export class RestoreError extends Error {}

export interface RestoreTarget {
  dataDir: string;
  databaseUrl: string | undefined;
  /** Which media store the objects go to (`cluster.enabled`, `media.store_url`). */
  settings: Pick<Settings, "cluster" | "media">;
}

export interface RestoreOptions {
  /** Replace a store that holds a household. */
  force?: boolean;
  clock: Clock;
  /** Progress, one line at a time. */
  say?: (line: string) => void;
}

export interface RestoreReport {
  manifest: BackupManifest;
  media_objects: number;
  /** Where the backup's settings (secrets replaced) were written, if it had any. */
  settings_file: string | null;
}

const SETTINGS_OUT = "settings-from-backup.json";

async function checkManifest(file: string): Promise<BackupManifest> {
  const m = await readManifest<BackupManifest>(file);
  if (m?.format !== BACKUP_FORMAT) throw new RestoreError(`${file} is not a careflow backup`);
  if (m.format_version > BACKUP_FORMAT_VERSION)
    throw new RestoreError(`${file} was made by careflow ${m.careflow_version}, in a newer format: restore it with that version or newer`);
  if (m.schema && !(await knownMigrations()).includes(m.schema))
    throw new RestoreError(`${file} holds schema ${m.schema}, newer than this careflow knows: restore it with careflow ${m.careflow_version} or newer`);
  return m;
}

/** Reads the whole file once: a damaged or cut file is found before anything is touched. */
async function verify(file: string): Promise<void> {
  await readBackupFile(
    file,
    () => undefined,
    async (_h, read) => read(() => undefined),
  );
}

/** A plain connection for the checks (no pragmas, no migrations): a restore must not change the store before it is allowed to. */
function checkConnection(dialect: "sqlite" | "postgres", location: string, databaseUrl: string | undefined): Knex {
  return dialect === "sqlite"
    ? knexFactory({ client: "better-sqlite3", connection: { filename: location }, useNullAsDefault: true, pool: { min: 1, max: 1 } })
    : knexFactory({
        client: "pg",
        connection: { connectionString: databaseUrl, application_name: `${STORE_APPLICATION_NAME}-restore` },
        pool: { min: 0, max: 1 },
      });
}

async function refuseUnlessAllowed(db: Knex | null, dialect: "sqlite" | "postgres", location: string, force: boolean, clock: Clock): Promise<void> {
  const inUse = dialect === "sqlite" ? sqliteInUse(location) : await postgresInUse(db as Knex, Date.now());
  if (inUse) throw new RestoreError(`the store is in use: ${inUse}`);
  if (!db) return;
  const rows = await householdRows(db);
  if (Object.keys(rows).length && !force)
    throw new RestoreError(
      `the store already holds a household (${Object.entries(rows)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ")}): a restore replaces everything in it; run it again with --force to do that (the time is ${isoAt(clock.now())})`,
    );
}

export async function restoreBackup(file: string, target: RestoreTarget, opts: RestoreOptions): Promise<RestoreReport> {
  const say = opts.say ?? (() => undefined);
  if (!fs.existsSync(file)) throw new RestoreError(`${file}: no such file`);
  const manifest = await checkManifest(file).catch((err: unknown) => {
    throw err instanceof BackupFileError ? new RestoreError(`${file}: ${err.message}`) : err;
  });
  const { dialect, location } = storeConfig(target.databaseUrl, target.dataDir);
  if (manifest.dialect !== dialect)
    throw new RestoreError(
      `${file} is a backup of a ${manifest.dialect === "sqlite" ? "SQLite" : "PostgreSQL"} store and the target is ${dialect === "sqlite" ? "SQLite" : "PostgreSQL"} (${location}): restore it into the kind of store it came from (DATABASE_URL)`,
    );
  const exists = dialect === "postgres" || fs.existsSync(location);
  const check = exists ? checkConnection(dialect, location, target.databaseUrl) : null;
  let hasTables: boolean;
  try {
    await refuseUnlessAllowed(check, dialect, location, opts.force === true, opts.clock);
    hasTables = check ? (await check.schema.hasTable("knex_migrations")) || (await check.schema.hasTable("kv")) : false;
  } finally {
    await check?.destroy();
  }
  say(`Checking ${file} (made ${manifest.created_at} by careflow ${manifest.careflow_version}) …`);
  await verify(file).catch((err: unknown) => {
    throw err instanceof BackupFileError ? new RestoreError(`${file}: ${err.message}`) : err;
  });
  const work = await fsp.mkdtemp(path.join(os.tmpdir(), "careflow-restore-"));
  try {
    return await restoreEntries(file, manifest, target, { dialect, location, hasTables, work, say, clock: opts.clock });
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
  }
}

interface Install {
  dialect: "sqlite" | "postgres";
  location: string;
  hasTables: boolean;
  work: string;
  say: (line: string) => void;
  clock: Clock;
}

async function restoreEntries(file: string, manifest: BackupManifest, target: RestoreTarget, how: Install): Promise<RestoreReport> {
  let kv: KvRow[] = [];
  let settingsFile: string | null = null;
  let database: string | null = null;
  let store: Awaited<ReturnType<typeof openStore>> | null = null;
  let media = 0;
  const toFile = (dest: string) => async (read: (sink: (c: Buffer) => void) => Promise<void>) => {
    const fd = await fsp.open(dest, "w");
    try {
      await read((chunk) => void fs.writeSync(fd.fd, chunk));
    } finally {
      await fd.close();
    }
  };
  /** The database in place and migrated, once, before the first media object. */
  const installed = async () => {
    if (store) return store;
    if (!database) throw new RestoreError(`${file} holds no database`);
    if (how.dialect === "sqlite") {
      await fsp.mkdir(path.dirname(path.resolve(how.location)), { recursive: true });
      for (const side of ["-wal", "-shm", "-journal"]) await fsp.rm(how.location + side, { force: true });
      await fsp.rename(database, how.location).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== "EXDEV") throw err;
        await fsp.copyFile(database as string, how.location);
      });
    } else {
      how.say("Restoring the database with pg_restore …");
      await restorePostgres(target.databaseUrl as string, database, { clean: how.hasTables });
    }
    store = await openStore(target.databaseUrl, target.dataDir);
    for (const row of kv) await kvPut(store.db, row);
    how.say(`The database is restored (schema ${manifest.schema}).`);
    return store;
  };
  try {
    await readBackupFile(
      file,
      () => undefined,
      async (h, read) => {
        if (h.name === ENTRY.sqlite || h.name === ENTRY.pgDump) {
          database = path.join(how.work, h.name);
          // SQLite: beside the target, so the rename is atomic on the same disk.
          if (how.dialect === "sqlite") database = `${path.resolve(how.location)}.restoring`;
          await fsp.mkdir(path.dirname(database), { recursive: true });
          await toFile(database)(read);
        } else if (h.name === ENTRY.kv) {
          const chunks: Buffer[] = [];
          await read((c) => void chunks.push(Buffer.from(c)));
          kv = JSON.parse(Buffer.concat(chunks).toString("utf8")) as KvRow[];
        } else if (h.name === ENTRY.settings) {
          settingsFile = path.join(target.dataDir, SETTINGS_OUT);
          await fsp.mkdir(target.dataDir, { recursive: true });
          await toFile(settingsFile)(read);
        } else if (/^(media|eink)\//.test(h.name)) {
          const s = await installed();
          const chunks: Buffer[] = [];
          await read((c) => void chunks.push(Buffer.from(c)));
          await mediaObjects({ db: s.db, dataDir: target.dataDir, settings: target.settings }).put(h.name, Buffer.concat(chunks), how.clock.now());
          if (++media % 500 === 0) how.say(`${media} of ${manifest.media.objects} media objects restored …`);
        }
      },
    );
    await installed();
  } finally {
    await (store as Awaited<ReturnType<typeof openStore>> | null)?.close();
  }
  how.say(`Restored: ${media} media objects.${settingsFile ? ` The backup's settings (secrets replaced by ***) are in ${settingsFile}.` : ""}`);
  return { manifest, media_objects: media, settings_file: settingsFile };
}
