/** Starting the real service (`node dist/runtime/main.js`) as a separate process for a benchmark. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { nowMs } from "./support";

const MAIN = path.resolve(__dirname, "../runtime/app/main.js");
const REPO = path.resolve(__dirname, "../..");
export const BENCH_ADMIN_KEY = "bench-admin-key-0001";

export interface Started {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  readyMs: number;
}

/**
 * `viaNpm` starts it exactly as a household does, `npm start` in the repository (npm's own
 * start-up included), in a process group of its own so stopping reaches node under npm.
 */
export async function startService(dataDir: string, env: NodeJS.ProcessEnv = {}, viaNpm = false): Promise<Started> {
  const t0 = nowMs();
  const childEnv = { ...process.env, PORT: "0", CAREFLOW_DATA_DIR: dataDir, CAREFLOW_ADMIN_KEY: BENCH_ADMIN_KEY, CAREFLOW_SETTINGS: "", ...env };
  const child = viaNpm
    ? spawn("npm", ["start"], { cwd: REPO, env: childEnv, stdio: ["ignore", "pipe", "inherit"], detached: true })
    : spawn(process.execPath, [MAIN], { env: childEnv, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"careflow listening"/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}`)));
  });
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return { child, port, baseUrl: `http://127.0.0.1:${port}`, readyMs: nowMs() - t0 };
}

export const stopService = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    // A detached child (npm start) leads its own group: the signal goes to npm and node alike.
    if (child.spawnargs[0] === "npm" && child.pid) process.kill(-child.pid, "SIGTERM");
    else child.kill("SIGTERM");
  });
