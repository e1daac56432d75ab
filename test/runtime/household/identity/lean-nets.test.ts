/**
 * The lean detector and descriptor net (runtime/household/identity/lean-nets.ts) give face-api's
 * results: the same faces with the same boxes and scores, the same descriptors for the same
 * crops, on every sample photo as a camera frame and as an enrollment-size photo; and a pass
 * over every frame leaves no tensor behind. Run in a worker (test/support/lean-nets-check.ts).
 */
import assert from "node:assert/strict";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { CheckResult } from "../../../support/lean-nets-check";

describe("identity: the lean SSD and descriptor nets match face-api's", function () {
  this.timeout(120_000);
  let result: CheckResult;

  before(async () => {
    const worker = new Worker(path.join(__dirname, "../../../support/lean-nets-check.js"));
    try {
      const msg = await new Promise<{ ok: boolean; result?: CheckResult; error?: string }>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      if (!msg.ok || !msg.result) throw new Error(msg.error);
      result = msg.result;
    } finally {
      await worker.terminate();
    }
  });

  it("finds the same faces, boxes within a pixel and scores within 0.001", () => {
    assert.equal(result.frames, 12);
    for (const [ref, lean] of result.counts) assert.equal(lean, ref);
    assert.ok(
      result.counts.every(([ref]) => ref >= 2),
      "every sample shows at least two faces",
    );
    assert.ok(result.maxBoxDiff < 1, `box difference ${result.maxBoxDiff} px`);
    assert.ok(result.maxScoreDiff < 1e-3, `score difference ${result.maxScoreDiff}`);
  });

  it("describes the same crops alike (distance under 0.001, same-person threshold 0.6)", () => {
    assert.ok(result.descriptors >= 30, `${result.descriptors} descriptors compared`);
    assert.ok(result.maxDescriptorDist < 1e-3, `descriptor distance ${result.maxDescriptorDist}`);
  });

  it("leaves no tensor behind", () => {
    assert.equal(result.tensorsAfter, result.tensorsBefore);
  });
});
