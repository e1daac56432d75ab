/** Waiting for a run to park a branch: a park, the run's end, or the liveness guard answers. */
import assert from "node:assert/strict";
import { ParkSignals } from "../../../../../../runtime/care/core/pipeline/engine/park-signals";

describe("park signals", () => {
  it("tells every waiter of the step when the run parks there, and no one else", async () => {
    const s = new ParkSignals();
    const a = s.wait(1, 5, 10_000);
    const b = s.wait(1, 5, 10_000);
    let other: boolean | undefined;
    void s.wait(1, 6, 10_000).then((v) => (other = v));
    s.parked(1, 5);
    assert.deepEqual(await Promise.all([a, b]), [true, true]);
    await new Promise((r) => setImmediate(r));
    assert.equal(other, undefined, "a waiter of another step still waits");
    s.ended(1);
    await new Promise((r) => setImmediate(r));
    assert.equal(other, false, "the run's end answers it");
  });

  it("answers false when the run ends first, or when the guard runs out", async () => {
    const s = new ParkSignals();
    const ended = s.wait(2, 1, 10_000);
    s.ended(2);
    assert.equal(await ended, false);
    assert.equal(await s.wait(3, 1, 5), false);
    s.parked(3, 1); // nobody left to tell: no throw
  });
});
