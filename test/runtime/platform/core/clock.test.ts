import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";

describe("ManualClock", () => {
  const turn = () => new Promise((r) => setImmediate(r));

  it("fires due timers in time order as it advances, and none before their time", () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.at(300, () => fired.push("c"));
    clock.at(100, () => fired.push("a"));
    clock.at(200, () => fired.push("b"));
    clock.advance(250);
    assert.deepEqual(fired, ["a", "b"]);
    assert.equal(clock.now(), 250);
  });

  it("fires a timer armed for a time already reached, as the system clock does, after the caller's turn", async () => {
    const clock = new ManualClock(1000);
    const fired: number[] = [];
    clock.at(900, () => fired.push(clock.now()));
    assert.equal(fired.length, 0, "not during the caller's turn");
    await turn();
    assert.deepEqual(fired, [1000]);
    const cancel = clock.at(1000, () => fired.push(-1));
    cancel();
    await turn();
    assert.deepEqual(fired, [1000], "a cancelled one never fires");
  });

  it("a timer armed by a firing one for a time inside the same advance fires in that advance, in order", () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.at(100, () => {
      fired.push("a");
      clock.at(50, () => fired.push("late"));
      clock.at(150, () => fired.push("b"));
    });
    clock.at(120, () => fired.push("c"));
    clock.advance(200);
    assert.deepEqual(fired, ["a", "late", "c", "b"]);
  });
});
