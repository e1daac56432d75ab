/**
 * Start-up: `npm start` to the first 200 from `/health` with nothing changed since the build
 * (issue 29's target: < 1 s), and the same for `node dist/runtime/app/main.js` without npm,
 * on a data dir that already holds the demo household (the first start, which seeds it, is
 * not timed). Each start is a fresh process; the CPU time node spent until the 200 is read
 * from /proc, which a loaded box inflates far less than the wall time.
 * The load average is printed with the figures: the box may be shared.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { median, report } from "./support";
import { startService, stopService, type Started } from "./service";

const ROUNDS = 5;

/** User + system CPU of a process and its children so far, in ms (Linux). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

const childrenOf = (pid: number): number[] => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return []; // a kernel without CONFIG_PROC_CHILDREN: the root's own CPU is reported
  }
};

/** The node process serving (under `npm start`, npm's child or grandchild, found by its command line). */
function nodePid(s: Started): number {
  const root = s.child.pid!;
  const family = [root, ...childrenOf(root).flatMap((c) => [c, ...childrenOf(c)])];
  return family.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("main.js")) ?? root;
}

async function timeStarts(dataDir: string, viaNpm: boolean): Promise<{ wall: number[]; cpu: number[] }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const s = await startService(dataDir, {}, viaNpm);
    wall.push(s.readyMs);
    cpu.push(cpuMs(nodePid(s)));
    await stopService(s.child);
  }
  return { wall, cpu };
}

async function main(): Promise<void> {
  const load0 = os.loadavg()[0];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-startup-"));
  try {
    // Seeds the demo household, and runs as long as a household's service does before its first
    // restart: past the 2 s after which it keeps its compiled code and module resolutions.
    const first = await startService(dataDir);
    await new Promise((r) => setTimeout(r, 3000));
    await stopService(first.child);
    // Alternating would not help here: each start is its own process either way.
    const npm = await timeStarts(dataDir, true);
    const direct = await timeStarts(dataDir, false);
    const npmMs = median(npm.wall);
    report(
      "startup",
      [
        { measure: `npm start to first 200 from /health (median of ${ROUNDS})`, value: npmMs, unit: "ms", target: "< 1000", ok: npmMs < 1000 },
        { measure: "  CPU of the node process until then", value: median(npm.cpu), unit: "ms" },
        { measure: `node dist/runtime/app/main.js to first 200 (median of ${ROUNDS})`, value: median(direct.wall), unit: "ms" },
        { measure: "  CPU of the node process until then", value: median(direct.cpu), unit: "ms" },
        { measure: "load average (1 min) at start / end", value: `${load0.toFixed(2)} / ${os.loadavg()[0].toFixed(2)}`, unit: `on ${os.cpus().length} cpus` },
      ],
      {
        npm_start_ms: npmMs,
        npm_start_all_ms: npm.wall,
        npm_start_cpu_ms: median(npm.cpu),
        direct_start_ms: median(direct.wall),
        direct_start_cpu_ms: median(direct.cpu),
        node_version: process.version,
        loadavg_start: load0,
        loadavg_end: os.loadavg()[0],
      },
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
