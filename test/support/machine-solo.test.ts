import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { giveTheMachineBack, startRunning, stopRunning, wantTheMachine } from "./machine-solo";

/** Another mocha worker, as far as the markers go: a live process of its own. */
const otherProcess = (): ChildProcess => spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });

const settledWithin = async (p: Promise<void>, ms: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
};

describe("test support: a file that has the machine alone", () => {
  let dir: string;
  let other: ChildProcess;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-machine-test-"));
    other = otherProcess();
  });
  afterEach(() => {
    other.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("waits for the file another process is running, and runs once it ends", async () => {
    await startRunning(dir, other.pid!);
    const alone = wantTheMachine(dir, process.pid);
    assert.equal(await settledWithin(alone, 400), false, "the other file is still running");
    stopRunning(dir, other.pid!);
    assert.equal(await settledWithin(alone, 2000), true);
    giveTheMachineBack(dir, process.pid);
  });

  it("keeps another process's next file from starting until it gives the machine back", async () => {
    await wantTheMachine(dir, process.pid);
    const next = startRunning(dir, other.pid!);
    assert.equal(await settledWithin(next, 400), false, "the machine is wanted");
    giveTheMachineBack(dir, process.pid);
    assert.equal(await settledWithin(next, 2000), true);
    stopRunning(dir, other.pid!);
  });

  it("does not wait for a file whose process died (a killed worker)", async () => {
    await startRunning(dir, other.pid!);
    other.kill("SIGKILL");
    await new Promise((r) => other.once("exit", r));
    assert.equal(await settledWithin(wantTheMachine(dir, process.pid), 2000), true);
    giveTheMachineBack(dir, process.pid);
  });
});
