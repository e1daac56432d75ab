/**
 * A "nothing happened" check (no run, no message, a count still 0) proves something only when it
 * waits on the controllable clock and the component's idle()/settled(), or on the event that would
 * have to come first (test/support: engineQuiet, drained, webapp.greeted). After a fixed sleep it
 * passes under load even when the wrong effect arrives late. This reads every test source and fails
 * on a fixed sleep followed within a few lines by such a check, unless a `sleep-ok:` comment on or
 * just above the sleep says why the sleep is part of what is tested.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const REPO = path.resolve(__dirname, "../../..");
const TESTS = path.join(REPO, "test");
/** How many lines after a sleep a "nothing" check counts as resting on it. */
const WINDOW = 6;
/** How many lines above a sleep its `sleep-ok:` reason may start. */
const REASON_ABOVE = 3;

/** `await new Promise((r) => setTimeout(r, 50))` and helpers like `await sleep(50)`: a wait by a fixed time. */
const SLEEP = [
  /new Promise(?:<[^>]*>)?\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*setTimeout\(\s*\1\s*,\s*[\d_]+\s*\)\s*\)/,
  /\bawait\s+(?:sleep|delay|pause|wait|tick)\(\s*[\d_]*\s*\)/,
];

/** Assertions that something did not happen: a count of 0, an empty list, a flag that stayed false, a `!` check. */
const NOTHING = [
  /\b(?:equal|strictEqual)\([^;]*,\s*(?:0|false|null|undefined)\s*[,)]/,
  /\bdeepEqual\([^;]*,\s*\[\s*\]\s*[,)]/,
  /\bdeepStrictEqual\([^;]*,\s*\[\s*\]\s*[,)]/,
  /\bassert(?:\.ok)?\(\s*!/,
];

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.isFile() && e.name.endsWith(".ts") ? [full] : [];
  });
}

/** Lines (1-based) of fixed sleeps followed within WINDOW lines by a "nothing" check and not marked `sleep-ok:`. */
export function sleepProofs(source: string): number[] {
  const lines = source.split("\n");
  const found: number[] = [];
  lines.forEach((line, i) => {
    if (!SLEEP.some((re) => re.test(line))) return;
    const reason = lines.slice(Math.max(0, i - REASON_ABOVE), i + 1).some((l) => l.includes("sleep-ok:"));
    if (reason) return;
    const after = lines.slice(i + 1, i + 1 + WINDOW);
    if (after.some((l) => NOTHING.some((re) => re.test(l)))) found.push(i + 1);
  });
  return found;
}

/**
 * Sleeps not replaced yet, each file no more than it had: the browser suite (being changed by
 * other work when this guard came) and two NATS cluster tests (what would prove the other
 * instance sent nothing is not reachable yet). Lower a count as its sleeps go; drop the file at 0.
 */
const KNOWN: Record<string, number> = {
  "test/browser/run-frames.test.ts": 1,
  "test/browser/voice.test.ts": 1,
  "test/runtime/platform/cluster/deploys-and-runs.test.ts": 1,
  "test/runtime/platform/cluster/fan-out.test.ts": 1,
};

describe("architecture: no fixed sleep as proof that nothing happened", () => {
  it("finds the forms it checks", () => {
    const flagged = [
      "await new Promise((r) => setTimeout(r, 50));\nassert.equal(runs.length, 0);",
      "await new Promise((resolve) => setTimeout(resolve, 1_500));\n\nassert.deepEqual(sent, []);",
      "await sleep(200);\nconst x = 1;\nassert.ok(!frames.some((f) => f.type === 'x'));",
      "await new Promise<void>((res) => setTimeout(res, 100));\nassert.equal(fired, false, 'not yet');",
    ];
    for (const source of flagged) assert.deepEqual(sleepProofs(source), [1], source);
    const passed = [
      "await engineQuiet(t.app.engine);\nassert.equal(runs.length, 0);",
      "// sleep-ok: the slow answer is the fake's point\nawait new Promise((r) => setTimeout(r, 50));\nassert.equal(n, 0);",
      "await new Promise((r) => setTimeout(r, 50)); // sleep-ok: spacing is the load under test\nassert.equal(n, 0);",
      "await new Promise((r) => setTimeout(r, 50));\nassert.equal(n, 3);",
      "await new Promise((r) => setTimeout(r, 50));\n1;\n2;\n3;\n4;\n5;\n6;\nassert.equal(n, 0);",
    ];
    for (const source of passed) assert.deepEqual(sleepProofs(source), [], source);
  });

  it("no test waits a fixed time before checking that nothing happened", () => {
    const self = path.join(TESTS, "architecture", "no-sleep-proofs.test.ts");
    const over: string[] = [];
    for (const file of tsFiles(TESTS)) {
      if (file === self) continue;
      const rel = path.relative(REPO, file).split(path.sep).join("/");
      const lines = sleepProofs(fs.readFileSync(file, "utf8"));
      if (lines.length > (KNOWN[rel] ?? 0)) over.push(`${rel}:${lines.join(",")}`);
    }
    assert.deepEqual(
      over,
      [],
      "wait on the clock and the component (engineQuiet, drained, greeted, idle(), settled()) or on the event that must come first; " +
        "a sleep that is part of what is tested gets a `// sleep-ok: why` comment",
    );
  });
});
