/**
 * Making a backup (docs/backups.md): a consistent snapshot of the store (SQLite's online backup
 * API or pg_dump on an exported snapshot), the `kv` rows without the secrets, the settings file
 * with its secrets replaced, and every media object, in one file (platform/backup/container.ts)
 * in `backup.dir`. Then the old ones are pruned (backup-files.ts) and the outcome is kept in
 * `kv`, where the Backups part of the health board and the Household page read it.
 *
 * Secrets are left out, not encrypted (docs/decisions.md): a backup file may be copied to a USB
 * stick or a cloud folder without becoming a key to the home.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import { ConflictError } from "../../platform/core/errors";
import { isoAt } from "../../platform/core/clock";
import { kvDelete, kvGet, kvSet } from "../../platform/db/kv";
import { packageInfo } from "../../platform/config/app-info";
import { readSettingsFile } from "../../platform/config/load-settings";
import { writeBackupFile, type EntrySource } from "../../platform/backup/container";
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, ENTRY, latestMigration, type BackupManifest } from "../../platform/backup/manifest";
import { snapshotSqlite } from "../../platform/backup/sqlite-snapshot";
import { dumpPostgres } from "../../platform/backup/pg-dump";
import { mediaObjects } from "../../household/media/media-objects";
import { redactSecrets } from "../ops/redact";
import { backupDir, backupFileName, pruneBackups, describeBackup, type BackupFile } from "./backup-files";

/**
 * `kv` rows that hold secrets, left out of every backup: the hub's token (set on the Household
 * page), Node-RED's credential key and the credentials it encrypts, the editor's sessions, and
 * the key signing media URLs. Each is made again, or asked for again, after a restore.
 */
export const SECRET_KV = ["hub.connection", "node-red:credential-secret", "node-red:credentials", "node-red:sessions", "media:url-secret"] as const;

/** The media store's folders, by object name. */
const MEDIA_PREFIXES = ["media/", "eink/"];

const LAST_OK = "backup:last-ok";
const LAST_FAILURE = "backup:last-failure";

export type BackupContext = Pick<PlatformContext, "db" | "dialect" | "clock" | "log" | "settings" | "settingsFile" | "dataDir">;

export interface BackupOutcome {
  at: string;
  made_by: BackupManifest["made_by"];
  /** The file's name in the backup dir (a success). */
  name?: string;
  size_bytes?: number;
  duration_ms: number;
  /** Why it failed (a failure). */
  error?: string;
}

/** The last backup that worked (null: none yet) and the last that failed since (null: none), as every instance sees them. */
export async function lastOutcomes(db: Knex): Promise<{ last_ok: BackupOutcome | null; last_failure: BackupOutcome | null }> {
  const read = async (key: string): Promise<BackupOutcome | null> => {
    const text = await kvGet(db, key);
    try {
      return text ? (JSON.parse(text) as BackupOutcome) : null;
    } catch {
      return null;
    }
  };
  return { last_ok: await read(LAST_OK), last_failure: await read(LAST_FAILURE) };
}

/** The connection URL a PostgreSQL store was opened with (store.ts names it `connectionString`). */
function databaseUrlOf(db: Knex): string {
  const connection = db.client.config.connection as { connectionString?: unknown } | string | undefined;
  const url = typeof connection === "string" ? connection : connection?.connectionString;
  if (typeof url !== "string") throw new Error("the PostgreSQL store's connection URL is not known");
  return url;
}

function sqliteFileOf(db: Knex): string {
  const connection = db.client.config.connection as { filename?: unknown } | undefined;
  if (typeof connection?.filename !== "string" || connection.filename === ":memory:") throw new Error("the SQLite store is not a file");
  return connection.filename;
}

/** One backup at a time per backup dir in this process; another instance holds the lease. */
const underWay = new Set<string>();

/** Is a backup being made now in this process (into this context's dir)? */
export const backupUnderWay = (ctx: Pick<BackupContext, "settings" | "dataDir">): boolean => underWay.has(backupDir(ctx));

/** Makes a backup now; answers the file made. A failure is recorded (the health board tells the family) and thrown. */
export async function makeBackup(ctx: BackupContext, madeBy: BackupManifest["made_by"]): Promise<BackupFile> {
  const dir = backupDir(ctx);
  if (underWay.has(dir)) throw new ConflictError("a backup is being made now: try again when it is done");
  underWay.add(dir);
  const started = ctx.clock.now();
  try {
    const made = await writeBackup(ctx, dir, madeBy);
    const outcome: BackupOutcome = {
      at: made.created_at,
      made_by: madeBy,
      name: made.name,
      size_bytes: made.size_bytes,
      duration_ms: ctx.clock.now() - started,
    };
    await kvSet(ctx.db, LAST_OK, JSON.stringify(outcome), outcome.at);
    // A failure is news until a backup works again (the health part and the page read it so).
    await kvDelete(ctx.db, LAST_FAILURE);
    ctx.log.info({ file: path.join(dir, made.name), bytes: made.size_bytes }, "backup: made");
    await pruneBackups(ctx, dir).catch((err: unknown) => ctx.log.warn({ err }, "backup: pruning the old backups failed"));
    return made;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const outcome: BackupOutcome = { at: isoAt(ctx.clock.now()), made_by: madeBy, duration_ms: ctx.clock.now() - started, error: message };
    await kvSet(ctx.db, LAST_FAILURE, JSON.stringify(outcome), outcome.at).catch(() => undefined);
    ctx.log.error({ err }, `backup: failed: ${message}`);
    throw err;
  } finally {
    underWay.delete(dir);
  }
}

/**
 * The backup a start takes before it upgrades the store (docs/upgrades.md), of the store as it
 * is (its old schema): the file's full path, which the way back names.
 */
export async function backupBeforeUpgrade(ctx: Omit<BackupContext, "db" | "dialect">, db: Knex, dialect: BackupContext["dialect"]): Promise<string> {
  const made = await makeBackup({ ...ctx, db, dialect }, "upgrade");
  return path.join(backupDir(ctx), made.name);
}

async function writeBackup(ctx: BackupContext, dir: string, madeBy: BackupManifest["made_by"]): Promise<BackupFile> {
  await fs.mkdir(dir, { recursive: true });
  const createdAt = isoAt(ctx.clock.now());
  const work = await fs.mkdtemp(path.join(dir, ".work-"));
  try {
    const first: EntrySource[] = [];
    let counts: Record<string, number>;
    if (ctx.dialect === "sqlite") {
      const copy = path.join(work, "careflow.db");
      counts = await snapshotSqlite(sqliteFileOf(ctx.db), copy, SECRET_KV);
      first.push({ name: ENTRY.sqlite, file: copy, size: (await fs.stat(copy)).size });
    } else {
      const dump = path.join(work, "careflow.pgdump");
      // The media table's rows come as objects below, whichever store holds them.
      const pg = await dumpPostgres(ctx.db, databaseUrlOf(ctx.db), dump, { secretKv: SECRET_KV, excludeData: ["kv", "media_objects"] });
      counts = pg.counts;
      first.push({ name: ENTRY.pgDump, file: dump, size: (await fs.stat(dump)).size });
      first.push({ name: ENTRY.kv, bytes: Buffer.from(JSON.stringify(pg.kv), "utf8") });
    }
    if (ctx.settingsFile)
      first.push({ name: ENTRY.settings, bytes: Buffer.from(JSON.stringify(redactSecrets(readSettingsFile(ctx.settingsFile)), null, 2), "utf8") });
    const store = mediaObjects(ctx);
    const objects = (await Promise.all(MEDIA_PREFIXES.map((p) => store.list(p)))).flat();
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      careflow_version: packageInfo().version,
      created_at: createdAt,
      made_by: madeBy,
      dialect: ctx.dialect,
      schema: (await latestMigration(ctx.db)) ?? "",
      counts,
      media: { objects: objects.length, bytes: objects.reduce((n, o) => n + o.size, 0) },
      settings: ctx.settingsFile !== undefined,
      left_out: [
        "secrets: the hub's token, Node-RED's credentials, editor sessions, the media links' signing key",
        "secret values of the settings file (replaced by ***) and the environment's keys",
      ],
    };
    async function* entries(): AsyncGenerator<EntrySource | null> {
      yield* first;
      // One object in memory at a time; one deleted since the listing (a retention sweep) is skipped.
      for (const o of objects) {
        const bytes = await store.get(o.name);
        yield bytes ? { name: o.name, bytes } : null;
      }
    }
    const name = await backupFileName(dir, ctx.clock.now(), madeBy);
    const size = await writeBackupFile(path.join(dir, name), manifest, entries());
    return describeBackup(name, size, manifest);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
