/**
 * Upgrading the store at start (issue 46 §3). A store another careflow migrated further than
 * this one knows is refused, naming both versions: reading it with older code would misread
 * what it cannot see. The pending migrations run as one transaction (knex's default when none
 * opts out), so one that fails leaves the store exactly as it was, and the start says which
 * failed, where the store stands and how to go back. Each careflow version that upgraded the
 * store is recorded in `careflow_versions`, so a later refusal can name the newer one. Before
 * it migrates a store that holds a household, the start backs it up (`beforeUpgrade`); without
 * that backup it does not upgrade.
 */
import type { Knex } from "knex";
import { migrationSource } from "./migrations";
import type { InfoLog } from "./sqlite-space";

/** The store cannot be used by this careflow: said to the person starting it, without a stack. */
export class StoreUpgradeError extends Error {
  override readonly name = "StoreUpgradeError";
}

export interface UpgradeOptions {
  /** Where the store is (no credentials), for the message. */
  location: string;
  /** This careflow's version (package.json). */
  version: string;
  log?: InfoLog;
  /** The schema's migrations; tests add a failing one. */
  source?: Knex.MigrationSource<string>;
  /**
   * Called before the pending migrations run on a store that has a household's schema (not a
   * new one): a backup of it, whose file the way back names. A failure refuses the upgrade.
   */
  beforeUpgrade?: (from: string, to: string) => Promise<string>;
  /** false: a store behind this careflow is left as it is (`npm run backup` backs it up as found). */
  migrate?: boolean;
}

export interface UpgradeOutcome {
  /** The newest migration before this start (`null`: a new store). */
  from: string | null;
  to: string;
  applied: string[];
}

const VERSIONS = "careflow_versions";

async function appliedMigrations(db: Knex): Promise<string[]> {
  if (!(await db.schema.hasTable("knex_migrations"))) return [];
  const rows: Array<{ name: string }> = await db("knex_migrations").select("name");
  return rows.map((r) => r.name).sort();
}

async function lastRecordedVersion(db: Knex): Promise<string | null> {
  if (!(await db.schema.hasTable(VERSIONS))) return null;
  const row: { version: string } | undefined = await db(VERSIONS).orderBy("id", "desc").first("version");
  return row?.version ?? null;
}

/** Runs the pending migrations, or refuses with what a person can do about it. */
export async function upgradeStore(db: Knex, opts: UpgradeOptions): Promise<UpgradeOutcome> {
  const source = opts.source ?? migrationSource;
  const known = [...(await source.getMigrations([]))].sort();
  const latest = known[known.length - 1];
  const applied = await appliedMigrations(db);
  const from = applied[applied.length - 1] ?? null;

  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    const newer = await lastRecordedVersion(db);
    throw new StoreUpgradeError(
      `the store at ${opts.location} was upgraded by a newer careflow (${newer ? `careflow ${newer}, ` : ""}schema ${unknown[unknown.length - 1]}) ` +
        `than this one (careflow ${opts.version}, schema ${latest}), which cannot read it safely. ` +
        `Start that newer careflow again, or restore a backup made by this version (docs/backups.md).`,
    );
  }

  const pending = known.filter((name) => !applied.includes(name));
  if (pending.length > 0 && opts.migrate === false) return { from, to: from ?? latest, applied: [] };
  let backup: string | null = null;
  if (pending.length > 0 && from !== null && opts.beforeUpgrade) {
    try {
      backup = await opts.beforeUpgrade(from, latest);
    } catch (err) {
      throw new StoreUpgradeError(
        `the store at ${opts.location} needs an upgrade from schema ${from} to ${latest}, and the backup taken before it failed: ` +
          `${err instanceof Error ? err.message : String(err)}. Nothing was changed. Fix what stopped the backup, or set backup.before_upgrade to false to upgrade without one (docs/upgrades.md).`,
      );
    }
    opts.log?.info({ from, to: latest, backup }, "store backed up before its upgrade");
  }
  if (pending.length > 0) {
    let failedIn: string | undefined;
    // Each migration's name is kept when it throws: knex's error says what, not where.
    const named: Knex.MigrationSource<string> = {
      getMigrations: (loaded) => source.getMigrations(loaded),
      getMigrationName: (m) => source.getMigrationName(m),
      getMigration: async (m) => {
        const migration = await source.getMigration(m);
        return {
          ...migration,
          up: async (knex: Knex) => {
            try {
              await migration.up(knex);
            } catch (err) {
              failedIn = source.getMigrationName(m);
              throw err;
            }
          },
        };
      },
    };
    try {
      await db.migrate.latest({ migrationSource: named });
    } catch (err) {
      const after = await appliedMigrations(db).catch(() => applied);
      const now = after[after.length - 1] ?? null;
      const unchanged = now === from;
      throw new StoreUpgradeError(
        `upgrading the store at ${opts.location} from schema ${from ?? "(new)"} to ${latest} failed` +
          `${failedIn ? ` in migration ${failedIn}` : ""}: ${err instanceof Error ? err.message : String(err)}. ` +
          (unchanged ? `Nothing was changed: the store is still at schema ${from ?? "(new)"}. ` : `The store is now at schema ${now}. `) +
          (backup
            ? `Start the careflow version you had before, or restore the backup taken before the upgrade: npm run restore -- ${backup} (docs/backups.md).`
            : `Start the careflow version you had before, or restore the backup taken before the upgrade (docs/backups.md).`),
      );
    }
    opts.log?.info({ from, to: latest, migrations: pending.length, version: opts.version }, "store upgraded");
  }
  if ((await lastRecordedVersion(db)) !== opts.version) await db(VERSIONS).insert({ version: opts.version, schema: latest, at: new Date().toISOString() });
  return { from, to: latest, applied: pending };
}
