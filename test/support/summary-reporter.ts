/**
 * mocha's spec reporter plus the plain closing lines CI reads: `N passed, N failed, N skipped`,
 * one `failed: …` line per failure (so the end of a long log names them), and the slowest files
 * (so a suite that grows past CI's 20 minutes shows where).
 */
import Mocha from "mocha";
import { slowestFiles } from "./file-timings";

const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

// In parallel mode an error arrives as a plain object with its message, not an Error.
const messageOf = (err: unknown): string => (err && typeof err === "object" && "message" in err && typeof err.message === "string" ? err.message : String(err));
// A wait that failed says what it saw on the lines after the first: keep some of them.
const firstLine = (err: unknown): string =>
  messageOf(err)
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join(" | ")
    .slice(0, 600);
// Where in the test it failed: the stack's first line in a test file (a browser wait's message
// does not say which of a test's waits it was).
const whereIn = (err: unknown): string => {
  const stack = err && typeof err === "object" && "stack" in err && typeof err.stack === "string" ? err.stack : "";
  const at = stack.split("\n").find((l) => /dist\/test\/.*\.test\.js:\d+/.test(l));
  const m = at?.match(/(dist\/test\/[^\s)]*\.test\.js:\d+)/);
  return m ? ` [at ${m[1]}]` : "";
};

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const failed: string[] = [];
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Test, err: unknown) => {
      failed.push(`failed: ${test.fullTitle()} (${test.file?.replace(`${process.cwd()}/`, "") ?? "?"}): ${firstLine(err)}${whereIn(err)}`);
    });
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      const slow = slowestFiles(12);
      if (slow.length > 0) process.stdout.write(`\nslowest files:\n${slow.join("\n")}\n`);
      process.stdout.write(`\n${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
      if (failed.length > 0) process.stdout.write(`${failed.join("\n")}\n`);
    });
  }
}

export = SummaryReporter;
