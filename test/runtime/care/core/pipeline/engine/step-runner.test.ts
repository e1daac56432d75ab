import assert from "node:assert/strict";
import type { StepHandler } from "../../../../../../nodes/_kit/handler-types";
import type { AppContext } from "../../../../../../runtime/app/context";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../../../runtime/platform/core/logger";
import { runStep } from "../../../../../../runtime/care/core/pipeline/engine/step-runner";
import { fakeServices } from "../../../../../nodes/fake-services";
import { stepInput } from "../../../../../nodes/handler-context";

describe("step runner", () => {
  const ctxWith = (clock: ManualClock) => ({ clock, log: createLogger("silent") }) as unknown as AppContext;

  it("returns the handler's result with its elapsed time", async () => {
    const handler: StepHandler<unknown> = async () => ({ data: { a: 1 } });
    const out = await runStep(ctxWith(new ManualClock()), fakeServices(), handler, stepInput({}), {}, 60_000);
    assert.equal(out.kind, "result");
    if (out.kind === "result") assert.deepEqual(out.result.data, { a: 1 });
  });

  it("times a hanging step out at the step timeout and aborts its signal", async () => {
    const clock = new ManualClock();
    let signal: AbortSignal | undefined;
    const handler: StepHandler<unknown> = (hctx) => {
      signal = hctx.signal;
      return new Promise(() => undefined);
    };
    const pending = runStep(ctxWith(clock), fakeServices(), handler, stepInput({}), {}, 60_000);
    clock.advance(59_000);
    await new Promise((r) => setImmediate(r));
    assert.equal(signal?.aborted, false);
    clock.advance(1_000);
    const out = await pending;
    assert.equal(out.kind, "timeout");
    if (out.kind === "timeout") assert.equal(out.error, "timed out after 60 s");
    assert.equal(signal?.aborted, true);
  });

  it("reports a handler that throws", async () => {
    const handler: StepHandler<unknown> = async () => {
      throw new Error("model server said 500");
    };
    const out = await runStep(ctxWith(new ManualClock()), fakeServices(), handler, stepInput({}), {}, 60_000);
    assert.equal(out.kind, "threw");
    if (out.kind === "threw") assert.equal(out.error, "model server said 500");
  });
});
