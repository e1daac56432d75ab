/**
 * `npm run backup`: one backup now, into `backup.dir`, from the store the environment names
 * (DATABASE_URL, CAREFLOW_DATA_DIR, CAREFLOW_SETTINGS), as the service would make it. Safe while
 * the service runs: the snapshot is online. Prints the file; exit 1 on failure (the health
 * board shows the failure too).
 */
import path from "node:path";
import { SettingsError, loadRunConfig } from "../../platform/config/load-settings";
import { systemClock } from "../../platform/core/clock";
import { createLogger } from "../../platform/core/logger";
import { openStore } from "../../platform/db/store";
import { backupDir } from "./backup-files";
import { makeBackup } from "./backup.service";

async function main(): Promise<number> {
  let config;
  try {
    config = loadRunConfig(process.env);
  } catch (err) {
    if (err instanceof SettingsError) {
      process.stderr.write(`careflow backup: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const log = createLogger("warn");
  // A store behind this careflow is backed up as found: upgrading is a start's, which backs up first.
  const store = await openStore(config.databaseUrl, config.dataDir, { migrate: false });
  try {
    const ctx = {
      db: store.db,
      dialect: store.dialect,
      clock: systemClock,
      log,
      settings: config.settings,
      settingsFile: config.settingsFile,
      dataDir: config.dataDir,
    };
    const made = await makeBackup(ctx, "command");
    process.stdout.write(`${path.join(backupDir(ctx), made.name)} (${(made.size_bytes / 1024 / 1024).toFixed(1)} MiB, ${made.media_objects} media objects)\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`careflow backup: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`careflow backup: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
