/**
 * `npm run golden [-- --update]`: runs only the golden-day test; with `--update` it rewrites the
 * golden trace instead of comparing with it (mocha refuses flags it does not know, so the flag
 * goes to the test as GOLDEN_UPDATE).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

const update = process.argv.slice(2).includes("--update");
const mocha = require.resolve("mocha/bin/mocha.js");
const test = path.join(__dirname, "golden-day.test.js");
const run = spawnSync(process.execPath, [mocha, "--no-config", "--timeout", "120000", "--exit", test], {
  stdio: "inherit",
  env: { ...process.env, ...(update ? { GOLDEN_UPDATE: "1" } : {}) },
});
process.exit(run.status ?? 1);
