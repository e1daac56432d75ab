/**
 * `npm run bench`: runs every compiled `bench/*.bench.js` in its own process, one after
 * another (so one benchmark's load never skews another), passing its output through.
 * `npm run bench -- eink` runs only the benchmarks whose file name contains "eink".
 * A benchmark still running after BENCH_TIMEOUT_MINUTES (15) is stopped and counted as failed,
 * so one that never ends (the rehearsal bench once waited on Node-RED's timer after printing
 * its figures) cannot hold the rest for ever. The soak runs as long as it is told
 * (SOAK_MINUTES, 10), so its limit is that plus 10 minutes for its set-up and accounting.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const dir = __dirname;
const filter = process.argv[2];
const timeoutMinutes = Number(process.env.BENCH_TIMEOUT_MINUTES ?? 15);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".bench.js") && (!filter || f.includes(filter)))
  .sort();

let failed = 0;
for (const file of files) {
  process.stdout.write(`\n=== ${file.replace(/\.js$/, "")}\n`);
  const limit = file.startsWith("soak.") ? Math.max(timeoutMinutes, Number(process.env.SOAK_MINUTES ?? 10) + 10) : timeoutMinutes;
  const res = spawnSync(process.execPath, [path.join(dir, file)], { stdio: "inherit", env: process.env, timeout: limit * 60_000 });
  if (res.status !== 0) {
    failed++;
    const timedOut = res.error && (res.error as NodeJS.ErrnoException).code === "ETIMEDOUT";
    process.stdout.write(timedOut ? `${file}: stopped, still running after ${limit} min\n` : `${file}: exited with ${res.status ?? res.signal}\n`);
  }
}
process.exit(failed ? 1 : 0);
