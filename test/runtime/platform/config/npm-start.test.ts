/** `npm start` as an operator runs it: Ctrl-C or SIGTERM to npm stops the server too; no silent start without a way in. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eventually } from "../../../support/eventually";

const ROOT = path.resolve(__dirname, "../../../../..");

interface Started {
  port: number;
  output: () => string;
  exited: Promise<number | null>;
  pid: number;
}

function npmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["start", "--silent"], { cwd: ROOT, env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`npm start did not listen: ${out}`));
    }, 30000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"careflow listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        // Give the start-up messages after "listening" a moment to arrive.
        setTimeout(() => resolve({ port: Number(m[1]), output: () => out, exited, pid: child.pid! }), 200);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
  });
}

const answers = async (port: number): Promise<boolean> => {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`)).ok;
  } catch {
    return false;
  }
};

describe("npm start", function () {
  this.timeout(60000);
  const dirs: string[] = [];
  const tmpDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-npm-"));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it("stops the server when npm itself gets SIGTERM", async () => {
    const s = await npmStart({ CAREFLOW_DATA_DIR: tmpDir(), CAREFLOW_DEMO: "0", CAREFLOW_ADMIN_KEY: "operator-admin-key" });
    assert.equal(await answers(s.port), true);
    process.kill(s.pid, "SIGTERM");
    await s.exited;
    await eventually("the server to stop answering after npm was stopped", async () => !(await answers(s.port)), 5_000);
  });

  it("says how to create an admin key when there is none and the demo is off", async () => {
    const s = await npmStart({ CAREFLOW_DATA_DIR: tmpDir(), CAREFLOW_DEMO: "0", CAREFLOW_ADMIN_KEY: "" });
    try {
      assert.match(s.output(), /no admin key is configured yet: the set-up link above makes the household's own/);
      assert.match(s.output(), /CAREFLOW_ADMIN_KEY=/);
      // An empty household: the one-time link of its guided set-up (issue 43 §3), which makes its admin key.
      await eventually("the set-up link", () => /\/household\/\?setup=[A-Za-z0-9_-]{20,}/.test(s.output()) || undefined, 10_000);
    } finally {
      process.kill(s.pid, "SIGINT");
      await s.exited;
    }
  });
});
