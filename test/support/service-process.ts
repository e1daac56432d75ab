/** Runs the real `npm start` entry point as a child process, as an operator would. */
import { spawn, type ChildProcess } from "node:child_process";
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
export function startService(env: NodeJS.ProcessEnv, timeoutMs = 15000): Promise<ServiceProcess> {
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
