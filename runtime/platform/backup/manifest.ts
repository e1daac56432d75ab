/**
 * What a backup says about itself, first in its file (container.ts): which careflow and schema
 * made it, from which kind of store, when, how many rows each table held and how many media
 * objects came along, and what was left out. Restore reads it before touching anything.
 */
import type { Knex } from "knex";
import { migrationSource } from "../db/migrations";
import type { Dialect } from "../db/store";

export const BACKUP_FORMAT = "careflow-backup";
export const BACKUP_FORMAT_VERSION = 1;

/** The entries' names: the database (one of the two), kv rows, settings, and `media/…`, `eink/…` objects. */
export const ENTRY = {
  sqlite: "database.sqlite",
  pgDump: "database.pgdump",
  kv: "kv.json",
  settings: "settings.json",
} as const;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  careflow_version: string;
  /** ISO-8601 UTC, the app's clock. */
  created_at: string;
  /** `scheduled`, `manual` (the page or the API) or `command` (npm run backup). */
  made_by: "scheduled" | "manual" | "command" | "upgrade";
  dialect: Dialect;
  /** The latest migration the store had run: the schema of the rows inside. */
  schema: string;
  /** Rows per table at the moment of the snapshot. */
  counts: Record<string, number>;
  media: { objects: number; bytes: number };
  /** Whether the settings file came along (secrets replaced by "***"). */
  settings: boolean;
  /** What was left out, in words (docs/backups.md). */
  left_out: string[];
}

/** Every migration's name, oldest first. */
export async function knownMigrations(): Promise<string[]> {
  const list = await migrationSource.getMigrations([]);
  return list.map((m) => migrationSource.getMigrationName(m));
}

/** The latest migration `db` has run (the knex_migrations table), or null for a store never migrated. */
export async function latestMigration(db: Knex): Promise<string | null> {
  if (!(await db.schema.hasTable("knex_migrations"))) return null;
  const rows: Array<{ name: string }> = await db("knex_migrations").select("name");
  const known = await knownMigrations();
  // By this build's order (its sorted names).
  let best: string | null = null;
  for (const r of rows) {
    if (!known.includes(r.name)) return r.name; // a newer careflow's: the caller refuses it
    if (best === null || known.indexOf(r.name) > known.indexOf(best)) best = r.name;
  }
  return best;
}
