/** `npm start`: read the run contract, build the app, listen, and stop cleanly on SIGTERM. */
// First: the compiled-code and resolution caches must be on before the modules below are loaded.
import { saveCompileCache } from "./compile-cache";
import { saveResolveCache } from "./resolve-cache";
import { createApp } from "./app";
import { StoreUpgradeError } from "../platform/db/schema-upgrade";
import { SettingsError, loadRunConfig } from "../platform/config/load-settings";
import { createLogger } from "../platform/core/logger";
import { nodeRedHost } from "../platform/nodered/host";
import { demoKeysBanner, placesBanner, setupLinkBanner } from "./start-banner";
import { firstStartToken } from "./first-start/setup-link";
import { staleBuildReason } from "./ops/build-freshness";

/** Without the demo and without an admin key nobody could log in or write a rule: say how to fix it. */
function printNoAdminHelp(setupLink: boolean): void {
  process.stderr.write(
    [
      "",
      setupLink
        ? "careflow: no admin key is configured yet: the set-up link above makes the household's own (shown once at its end)."
        : "careflow: no admin key is configured, so nobody can open the editor or change a rule.",
      setupLink ? "  Or create one yourself and start again, for example:" : "  Create one and start again, for example:",
      '    CAREFLOW_ADMIN_KEY=$(node -e \'console.log(require("crypto").randomBytes(24).toString("base64url"))\') npm start',
      '  or add {"key": "...", "name": "ops", "permissions": ["admin"]} to auth.api_keys in the settings file',
      "  named by CAREFLOW_SETTINGS (CAREFLOW_DEMO=1, the default, also creates demo keys on an empty data dir).",
      "",
    ].join("\n") + "\n",
  );
}

async function main(): Promise<void> {
  void staleBuildReason().then(
    (stale) => stale && process.stderr.write(`careflow: running an old build (${stale}): run \`npm run build\`, or \`npm run dev\` to build and start\n`),
    () => undefined, // a check that cannot read the tree says nothing rather than stop the service
  );
  let config;
  try {
    config = loadRunConfig(process.env);
  } catch (err) {
    if (err instanceof SettingsError) {
      process.stderr.write(`careflow: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.settings.app.log_level);
  const demo = process.env.CAREFLOW_DEMO !== "0";
  const app = await createApp({ config, log, demo }).catch((err: unknown) => {
    // A setting that cannot work with this store (cluster.enabled on SQLite), or a store this
    // version cannot upgrade or read, is said plainly.
    if (!(err instanceof SettingsError || err instanceof StoreUpgradeError)) throw err;
    process.stderr.write(`careflow: ${err.message}\n`);
    process.exit(2);
  });
  const port = await app.listen(config.port);
  log.info({ port, database: app.ctx.dialect, data_dir: config.dataDir, timezone: config.settings.app.timezone }, "careflow listening");
  const household = app.ctx.address?.current()?.base ?? `http://localhost:${port}`;
  const at = { base: `http://localhost:${port}`, household };
  // A household with nobody and no room yet (CAREFLOW_DEMO=0) gets its one-time set-up link.
  const setup = demo ? null : await firstStartToken(app.ctx);
  const banner = [
    ...(app.demoSeeded ? demoKeysBanner(app.ctx.settings, config.dataDir, at) : []),
    ...placesBanner(app.ctx.settings, at),
    ...(setup ? setupLinkBanner(at, setup) : []),
  ];
  process.stdout.write(banner.join("\n") + "\n");
  if (!app.ctx.settings.auth.api_keys.some((k) => k.permissions.includes("admin"))) printNoAdminHelp(setup !== null);
  // The code compiled while starting, kept for the next start; a little later, so the first requests go first.
  setTimeout(() => {
    const stats = saveCompileCache();
    if (stats) log.debug({ ...stats }, "compile cache");
    const resolved = saveResolveCache();
    if (resolved) log.debug({ ...resolved }, "resolution cache");
  }, 2000).unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 10000);
    force.unref();
    try {
      await app.close();
      await nodeRedHost.shutdown();
    } catch (err) {
      log.error({ err }, "error during shutdown");
    }
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
  process.stderr.write(`careflow: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
