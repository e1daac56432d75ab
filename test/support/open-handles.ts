/**
 * What a test file leaves running fails that file. mocha ends the run by itself (no `exit` in
 * .mocharc.cjs), but its parallel workers are killed at the end whatever they still hold, so a
 * server, socket, child process or timer that a `stop()` forgot would pass unseen: each file's
 * root hooks (run once per file in a worker) compare what keeps the event loop alive before and
 * after it. `CAREFLOW_OPEN_HANDLES=trace` adds where each leftover timer was started.
 */
import type { ChildProcess } from "node:child_process";
import net from "node:net";
import timers from "node:timers";
import timersPromises from "node:timers/promises";
import type Mocha from "mocha";
import { nodeRedHost } from "../../runtime/platform/nodered/host";

type Handle = object;

const activeHandles = (): Handle[] => (process as unknown as { _getActiveHandles(): Handle[] })._getActiveHandles();

/** Timers are not among the handles; their count is. */
const timerCount = (): number => process.getActiveResourcesInfo().filter((t) => t === "Timeout").length;

const describe = (h: Handle): string => {
  if (h instanceof net.Server) {
    const a = h.address();
    return `server listening on ${typeof a === "string" ? a : `${a?.address}:${a?.port}`}`;
  }
  if (h instanceof net.Socket) {
    if (h.remotePort !== undefined) return `socket ${h.localAddress}:${h.localPort} -> ${h.remoteAddress}:${h.remotePort}`;
    return "socket (pipe or closing)";
  }
  const child = h as Partial<ChildProcess>;
  if (typeof child.pid === "number" && Array.isArray(child.spawnargs)) return `child process ${child.pid} (${child.spawnargs.join(" ").slice(0, 120)})`;
  return h.constructor?.name ?? "handle";
};

/** Where each timer still pending was started, when traced. */
interface Started {
  stack: string;
  timer: WeakRef<NodeJS.Timeout>;
}
const started = new Map<number, Started>();
let nextTimer = 0;
const sleeping = new Map<number, string>();

const pending = (t: NodeJS.Timeout | undefined): boolean => {
  const internals = t as unknown as { _destroyed?: boolean; _idlePrev?: unknown } | undefined;
  return !!t && !internals?._destroyed && !!internals?._idlePrev && t.hasRef();
};

// Node-RED arms its editor sessions' expiry (days ahead) at the first login in a process: its own
// timer for the process's life, not a leftover of the file that happened to log in first. Long
// timers are noted with whether Node-RED started them.
const longTimers: Array<{ timer: WeakRef<NodeJS.Timeout>; nodeRed: boolean }> = [];
/**
 * Every timer with its callback (weakly, no stack: cheap enough to keep on in CI), so a leftover
 * one is named by the code it would run even when the run was not traced.
 */
const recentTimers: Array<{ timer: WeakRef<NodeJS.Timeout>; fn: WeakRef<object> | null; ms: number; kind: string }> = [];
{
  for (const name of ["setTimeout", "setInterval"] as const) {
    const original = timers[name] as (...args: unknown[]) => NodeJS.Timeout;
    const noting = (...args: unknown[]): NodeJS.Timeout => {
      const timer = original(...args);
      const ms = Number(args[1]) || 0;
      recentTimers.push({ timer: new WeakRef(timer), fn: typeof args[0] === "function" ? new WeakRef(args[0]) : null, ms, kind: name });
      if (recentTimers.length > 50_000) dropEnded();
      if (name === "setTimeout" && ms >= 3_600_000)
        longTimers.push({ timer: new WeakRef(timer), nodeRed: /[\\/]@node-red[\\/]/.test(new Error().stack ?? "") });
      return timer;
    };
    (globalThis as Record<string, unknown>)[name] = noting;
    (timers as Record<string, unknown>)[name] = noting;
  }
}

function dropEnded(): void {
  let kept = 0;
  for (const r of recentTimers) if (pending(r.timer.deref())) recentTimers[kept++] = r;
  recentTimers.length = kept;
}

/** The timers started since the last baseline and still pending, by the code they would run. */
const pendingCallbacks = (): string[] =>
  recentTimers
    .filter((r) => pending(r.timer.deref()))
    .map((r) => {
      const fn = r.fn?.deref();
      const code = typeof fn === "function" ? `${fn.name || "anonymous"}: ${fn.toString().replace(/\s+/g, " ").slice(0, 240)}` : "(callback gone)";
      return `${r.kind}(${r.ms} ms) ${code}`;
    });
const nodeRedLongTimers = (): number => longTimers.filter((l) => l.nodeRed && pending(l.timer.deref())).length;

if (process.env.CAREFLOW_OPEN_HANDLES === "trace") {
  // Timers are wrapped where they are started (async_hooks would also see Node's own, started
  // from native callbacks without a useful stack).
  for (const name of ["setTimeout", "setInterval"] as const) {
    const original = timers[name] as (...args: unknown[]) => NodeJS.Timeout;
    const traced = (...args: unknown[]): NodeJS.Timeout => {
      const timer = original(...args);
      const stack = (new Error().stack ?? "").split("\n").slice(2, 12).join("\n");
      started.set(nextTimer++, { stack, timer: new WeakRef(timer) });
      return timer;
    };
    (globalThis as Record<string, unknown>)[name] = traced;
    (timers as Record<string, unknown>)[name] = traced;
  }
  // A promised sleep's timer is Node's own: its stack is kept against the count of pending ones.
  const sleep = timersPromises.setTimeout;
  (timersPromises as Record<string, unknown>).setTimeout = (...args: Parameters<typeof sleep>) => {
    const id = nextTimer++;
    sleeping.set(id, (new Error().stack ?? "").split("\n").slice(2, 12).join("\n"));
    return sleep(...args).finally(() => sleeping.delete(id));
  };
}

const stillPending = (): number[] => [...[...started.entries()].filter(([, s]) => pending(s.timer.deref())).map(([id]) => id), ...sleeping.keys()];

let before = new Set<Handle>();
let timersBefore = 0;
let pendingBefore = new Set<number>();
let redBefore = false;
let nodeRedTimersBefore = 0;
let callbacksBefore = new Set<string>();

const leftovers = (): { handles: Handle[]; timers: number } => ({
  handles: activeHandles().filter((h) => !before.has(h) && !isStdio(h)),
  timers: Math.max(0, timerCount() - timersBefore),
});

const isStdio = (h: Handle): boolean => h === process.stdout || h === process.stderr || h === process.stdin;

const GRACE_MS = 1500;

/** Some closes finish a few ticks after the promise that asked for them (a socket's end). */
async function settle(): Promise<{ handles: Handle[]; timers: number }> {
  const until = Date.now() + GRACE_MS;
  let left = leftovers();
  while ((left.handles.length > 0 || left.timers > 0) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setImmediate(r)); // past the timer's own end
    left = leftovers();
  }
  return left;
}

export function openHandlesBefore(): void {
  before = new Set(activeHandles());
  timersBefore = timerCount();
  for (const [id, s] of started) if (!pending(s.timer.deref())) started.delete(id);
  // Pending ones stay (they are counted in the baseline too, and named only if still left).
  dropEnded();
  callbacksBefore = new Set(pendingCallbacks());
  pendingBefore = new Set(stillPending());
  redBefore = nodeRedHost.booted;
  nodeRedTimersBefore = nodeRedLongTimers();
}

/** Throws naming what the file left running; the leftovers count as the next file's baseline. */
export async function openHandlesAfter(file: string | undefined): Promise<void> {
  await new Promise((r) => setImmediate(r));
  const left = await settle();
  const lines = left.handles.map(describe);
  // Node-RED runs once per process and cannot start again after a stop, so a worker keeps it
  // from the first file that needs it: that file's timers are Node-RED's (its editor's
  // heartbeat); node-red-stop.test proves a shutdown ends them.
  if (!redBefore && nodeRedHost.booted) left.timers = 0;
  left.timers = Math.max(0, left.timers - Math.max(0, nodeRedLongTimers() - nodeRedTimersBefore));
  if (left.timers > 0) lines.push(`${left.timers} timer(s)`);
  const traced = stillPending()
    .filter((id) => !pendingBefore.has(id))
    .map((id) => `timer started\n${started.get(id)?.stack ?? sleeping.get(id)}`);
  const named = left.timers > 0 ? pendingCallbacks().filter((c) => !callbacksBefore.has(c)) : [];
  openHandlesBefore();
  if (lines.length === 0) return;
  const where =
    traced.length > 0
      ? `\n${traced.join("\n")}`
      : `${named.length > 0 ? `\npending: ${named.join("\npending: ")}` : ""}\n(CAREFLOW_OPEN_HANDLES=trace shows where timers were started)`;
  throw new Error(`${file ?? "this file"} left running: ${lines.join("; ")}${where}`);
}

export const openHandleHooks: Mocha.RootHookObject = {
  // Async like the after-hook, so mocha's own timeout timer for the hook is in both counts.
  async beforeAll(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    openHandlesBefore();
  },
  async afterAll(this: Mocha.Context): Promise<void> {
    const parent = this.test?.parent;
    const file = parent?.file ?? parent?.suites.find((s) => s.file)?.file;
    await openHandlesAfter(file?.replace(`${process.cwd()}/`, ""));
  },
};

const END_WAIT_MS = 10_000;

/**
 * After the run: a process still up `END_WAIT_MS` later (a serial run's leftovers, or the main
 * process's own) prints what holds it and ends failed, instead of hanging CI. The timer does not
 * itself hold the process, so a clean end is not delayed.
 */
export function failIfTheEndHangs(): void {
  setTimeout(() => {
    const what = [
      ...activeHandles()
        .filter((h) => !isStdio(h))
        .map(describe),
      ...process.getActiveResourcesInfo().filter((t) => t === "Timeout"),
    ];
    process.stderr.write(`\nthe test run did not end ${END_WAIT_MS / 1000} s after its last file; still running: ${what.join("; ")}\n`);
    process.exit(1);
  }, END_WAIT_MS).unref();
}
