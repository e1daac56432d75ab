/**
 * `npm run restore -- FILE [--force]`: restores a backup into the store the environment names
 * (DATABASE_URL, CAREFLOW_DATA_DIR; CAREFLOW_SETTINGS for where media goes). Refuses while a
 * service uses that store, and into one that holds a household unless `--force`. Stop the
 * service first; start it again after.
 */
import { SettingsError, loadRunConfig } from "../../platform/config/load-settings";
import { systemClock } from "../../platform/core/clock";
import { RestoreError, restoreBackup } from "./restore";

const USAGE = "usage: npm run restore -- FILE [--force]   (stop the service first; DATABASE_URL and CAREFLOW_DATA_DIR name the store)";

async function main(argv: readonly string[]): Promise<number> {
  const force = argv.includes("--force");
  const files = argv.filter((a) => a !== "--force");
  if (files.length !== 1 || files[0].startsWith("-")) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let config;
  try {
    config = loadRunConfig(process.env);
  } catch (err) {
    if (err instanceof SettingsError) {
      process.stderr.write(`careflow restore: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  try {
    await restoreBackup(
      files[0],
      { dataDir: config.dataDir, databaseUrl: config.databaseUrl, settings: config.settings },
      { force, clock: systemClock, say: (line) => process.stdout.write(`${line}\n`) },
    );
    process.stdout.write("Done. Start careflow again (npm start); re-enter the hub's token on the Household page if it had one.\n");
    return 0;
  } catch (err) {
    if (err instanceof RestoreError) {
      process.stderr.write(`careflow restore: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`careflow restore: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
