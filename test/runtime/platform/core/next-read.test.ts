/** Callers of one read at once share it, and never get an answer read before they asked. */
import assert from "node:assert/strict";
import { NextRead } from "../../../../runtime/platform/core/next-read";

describe("NextRead", () => {
  it("serves a burst of callers with two reads, each answer read after its caller asked", async () => {
    let version = 0;
    let reads = 0;
    const releases: Array<() => void> = [];
    const shared = new NextRead(async () => {
      reads++;
      const seen = version;
      await new Promise<void>((r) => releases.push(r));
      return seen;
    });
    const first = shared.get();
    version = 1; // committed after the first read began: later callers must see it
    const later = Array.from({ length: 50 }, () => shared.get());
    releases.shift()?.();
    assert.equal(await first, 0);
    await new Promise((r) => setImmediate(r));
    releases.shift()?.();
    assert.deepEqual(new Set(await Promise.all(later)), new Set([1]));
    assert.equal(reads, 2);
  });

  it("reads again after a failed read", async () => {
    let fail = true;
    const shared = new NextRead(() => (fail ? Promise.reject(new Error("down")) : Promise.resolve("ok")));
    const a = shared.get();
    const b = shared.get();
    fail = false;
    await assert.rejects(a, /down/);
    assert.equal(await b, "ok");
    assert.equal(await shared.get(), "ok");
  });
});
