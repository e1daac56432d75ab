/** The service's parts stop last-started first, each once, and one failing stop does not keep the others running. */
import assert from "node:assert/strict";
import { Lifecycle } from "../../../../runtime/platform/core/lifecycle";
import { captureLog } from "../../../support/capture-log";

describe("lifecycle", () => {
  it("stops the parts in the reverse order they started, once however often it is asked", async () => {
    const { log } = captureLog();
    const l = new Lifecycle(log);
    const stopped: string[] = [];
    for (const name of ["store", "engine", "triggers", "http server"]) l.add(name, async () => void stopped.push(name));
    await Promise.all([l.stop(), l.stop()]);
    await l.stop();
    assert.deepEqual(stopped, ["http server", "triggers", "engine", "store"]);
  });

  it("logs a stop that fails and stops the rest", async () => {
    const { log, lines } = captureLog();
    const l = new Lifecycle(log);
    const stopped: string[] = [];
    l.add("store", () => void stopped.push("store"));
    l.add("engine", () => {
      throw new Error("disk gone");
    });
    await l.stop();
    assert.deepEqual(stopped, ["store"]);
    assert.equal(lines.find((x) => x.msg === "stopping a part of the service failed")?.part, "engine");
  });
});
