/** Starting the real service (`node dist/runtime/main.js`) as a separate process for a benchmark. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { nowMs } from "./support";

const MAIN = path.resolve(__dirname, "../runtime/app/main.js");
export const BENCH_ADMIN_KEY = "bench-admin-key-0001";

export interface Started {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  readyMs: number;
}

export async function startService(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const t0 = nowMs();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: "0", CAREFLOW_DATA_DIR: dataDir, CAREFLOW_ADMIN_KEY: BENCH_ADMIN_KEY, CAREFLOW_SETTINGS: "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
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
    child.kill("SIGTERM");
  });
