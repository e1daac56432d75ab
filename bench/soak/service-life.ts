/**
 * One life of the soak's service: `node dist/runtime/app/main.js` as a child process, as
 * `npm start` runs it, until a kill -9 or the end. Unlike test/support/service-process.ts it
 * keeps only the last lines of the service's output: over an hour the whole log would be the
 * bench's own leak.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { MAIN } from "../../test/support/service-process";
import { nowMs } from "../support";

const KEEP_LINES = 200;

export interface ServiceLife {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** Date.now() when it answered its first /health. */
  startedAt: number;
  /** From spawn to the first 200 from /health, ms. */
  readyMs: number;
  /** Exited without the bench killing it (a crash). */
  readonly died: boolean;
  tail(): string;
  /** kill -9, or SIGTERM for the end; resolves on exit. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

export async function startLife(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<ServiceLife> {
  const t0 = nowMs();
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let port = 0;
  let stopping = false;
  let died = false;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      if (!stopping) died = true;
      resolve();
    }),
  );
  const keep = (d: Buffer) => {
    for (const line of d.toString().split("\n")) {
      if (!line) continue;
      lines.push(line);
      if (!port) {
        const m = /"port":(\d+)[^\n]*"msg":"careflow listening"/.exec(line);
        if (m) port = Number(m[1]);
      }
    }
    if (lines.length > KEEP_LINES) lines.splice(0, lines.length - KEEP_LINES);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const deadline = t0 + timeoutMs;
  while (!port) {
    if (died || nowMs() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the service did not start:\n${lines.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  for (;;) {
    const res = await fetch(`${baseUrl}/health`).catch(() => undefined);
    await res?.text();
    if (res?.status === 200) break;
    if (died || nowMs() > deadline) throw new Error(`the service never answered /health:\n${lines.join("\n")}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    child,
    pid: child.pid!,
    baseUrl,
    startedAt: Date.now(),
    readyMs: nowMs() - t0,
    get died() {
      return died;
    },
    tail: () => lines.join("\n"),
    stop: async (signal) => {
      stopping = true;
      child.kill(signal);
      await exited;
    },
  };
}

/** The child's resident set, MB (VmRSS of /proc/<pid>/status); null once it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}
