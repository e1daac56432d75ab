/** Runs the real `npm start` entry point as a child process, as an operator would. */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const MAIN = path.resolve(__dirname, "../../runtime/app/main.js");

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  stdout: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ExitedProcess {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run main.js to completion (for start-up failures). */
export function runToExit(env: NodeJS.ProcessEnv, timeoutMs = 15000): Promise<ExitedProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`main.js did not exit within ${timeoutMs} ms: ${stdout}${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Start main.js on port 0 and resolve once it logs the port it listens on. */
export function startService(env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<ServiceProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`service did not start: ${out}${err}`));
    }, timeoutMs);
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"careflow listening"/.exec(out);
      if (m && timer) {
        clearTimeout(timer);
        const port = Number(m[1]);
        resolve({
          child,
          port,
          baseUrl: `http://127.0.0.1:${port}`,
          stdout: () => out,
          stop: async (signal = "SIGTERM") => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.on("exit", (code) => reject(new Error(`service exited with ${code}: ${out}${err}`)));
  });
}

/**
 * The environment of a service started as an operator would on a test database: its settings
 * written as the settings file in the data dir, the admin key, no demo household.
 */
export function operatorEnv(db: { dataDir: string; databaseUrl: string | undefined }, adminKey: string, settings: Record<string, unknown>): NodeJS.ProcessEnv {
  const file = path.join(db.dataDir, "settings.json");
  fs.writeFileSync(file, JSON.stringify(settings));
  return {
    CAREFLOW_DATA_DIR: db.dataDir,
    CAREFLOW_ADMIN_KEY: adminKey,
    CAREFLOW_DEMO: "0",
    CAREFLOW_SETTINGS: file,
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
  };
}

/** JSON calls with a key to the service `current()` names (it changes across restarts). */
export function keyedApi(current: () => ServiceProcess | undefined, key: string) {
  return async (method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(current()!.baseUrl + p, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  };
}
