/**
 * How long each test file takes, hooks included, so CI can show where its 20 minutes go.
 * mocha runs root hooks once per file in each parallel worker; the first and last of them bracket
 * the file. Each file appends one line to the run's timings file (`CAREFLOW_TEST_TIMINGS`), which
 * the summary reporter reads at the end; outside such a run nothing is written.
 */
import fs from "node:fs";
import type Mocha from "mocha";

const TIMINGS = "CAREFLOW_TEST_TIMINGS";

export const timingsFile = (): string | undefined => process.env[TIMINGS] || undefined;

export function setTimingsFile(file: string): void {
  process.env[TIMINGS] = file;
}

let started = 0;

const fileOf = (suite: Mocha.Suite | undefined): string | undefined => suite?.file ?? suite?.suites.find((s) => s.file)?.file;

export const timingHooks: Mocha.RootHookObject = {
  beforeAll(): void {
    started = Date.now();
  },
  afterAll(this: Mocha.Context): void {
    const out = timingsFile();
    const file = fileOf(this.test?.parent);
    if (!out || !file) return;
    fs.appendFileSync(out, `${JSON.stringify({ file, ms: Date.now() - started })}\n`);
  },
};

/** The slowest files of the run, slowest first, as `12.3 s  dist/test/x.test.js` lines. */
export function slowestFiles(count: number): string[] {
  const out = timingsFile();
  if (!out || !fs.existsSync(out)) return [];
  const rows = fs
    .readFileSync(out, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { file: string; ms: number });
  return rows
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((r) => `${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file.replace(`${process.cwd()}/`, "")}`);
}
