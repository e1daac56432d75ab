import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { checkConfig } from "../../../../nodes/_kit/config";
import { handler } from "../../../../nodes/steps/wait/wait.handler";
import { spec } from "../../../../nodes/steps/wait/wait.node";
import { handlerContext, stepInput } from "../../handler-context";

describe("wait handler", () => {
  const run = async (c: Record<string, unknown>) => {
    const clock = new ManualClock(Date.parse("2026-03-01T10:00:00Z"));
    const check = checkConfig(spec, c);
    assert.ok(check.ok);
    const r = await handler(handlerContext({}, clock), stepInput({}), check.config as never);
    return { minutes: ((r.wait_until ?? 0) - clock.now()) / 60000, r };
  };

  it("waits duration_minutes", async () => assert.equal((await run({ duration_minutes: 7 })).minutes, 7));
  it("takes minutes as an alias", async () => assert.equal((await run({ minutes: 9 })).minutes, 9));
  it("prefers duration_minutes over the alias", async () => assert.equal((await run({ duration_minutes: 2, minutes: 9 })).minutes, 2));
  it("waits 5 minutes when neither is set", async () => assert.equal((await run({})).minutes, 5));
  it("records when the wait started", async () => assert.equal((await run({ duration_minutes: 1 })).r.data?.wait_started, "2026-03-01T10:00:00.000Z"));
});
