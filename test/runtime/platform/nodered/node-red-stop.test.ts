/**
 * A stop leaves nothing running: the app closed with the hub and tracking connected, then
 * Node-RED stopped after it, its flows and its editor (whose heartbeat timer, left running, kept
 * a process that did not exit by hand up for ever; `npm run bench` waited on one). The service
 * itself ends with `process.exit`, and mocha with `--exit`, which would hide what a stop forgets.
 */
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import path from "node:path";

const CHILD = path.join(__dirname, "stop-and-exit.child.js");

describe("Node-RED stopped with the process", function () {
  this.timeout(60_000);

  it("leaves nothing running: the process ends by itself once the app (hub and tracking connected) and Node-RED are stopped", async () => {
    const child = fork(CHILD, [], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
    const startedAt = Date.now();
    let stoppedAt = 0;
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("stopped")) stoppedAt = Date.now();
    });
    const exited = await new Promise<{ code: number | null; afterStopMs: number } | null>((resolve) => {
      const check = setInterval(() => {
        if ((stoppedAt && Date.now() - stoppedAt > 5000) || Date.now() - startedAt > 45_000) {
          clearInterval(check);
          child.kill("SIGKILL");
          resolve(null);
        }
      }, 100);
      child.once("exit", (code) => {
        clearInterval(check);
        resolve({ code, afterStopMs: Date.now() - stoppedAt });
      });
    });
    assert.ok(stoppedAt > 0, "the child did not get as far as stopping");
    assert.ok(exited, "the process was still running 5 s after the app and Node-RED were stopped");
    assert.equal(exited.code, 0);
  });
});
