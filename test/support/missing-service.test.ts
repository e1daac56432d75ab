import assert from "node:assert/strict";
import { skipForMissingService } from "./missing-service";

describe("a suite whose service is missing", () => {
  const saved = process.env.CAREFLOW_REQUIRE_SERVICES;
  afterEach(() => {
    if (saved === undefined) delete process.env.CAREFLOW_REQUIRE_SERVICES;
    else process.env.CAREFLOW_REQUIRE_SERVICES = saved;
  });

  it("fails, not skips, where the run requires the machine's services (CI)", () => {
    process.env.CAREFLOW_REQUIRE_SERVICES = "1";
    let skipped = false;
    const ctx = { skip: () => ((skipped = true), assert.fail("skipped")) } as unknown as Mocha.Context;
    assert.throws(() => skipForMissingService(ctx, "no NATS JetStream broker"), /required service missing: no NATS JetStream broker/);
    assert.equal(skipped, false);
  });

  it("skips, saying so, elsewhere", () => {
    delete process.env.CAREFLOW_REQUIRE_SERVICES;
    let skipped = false;
    const ctx = {
      skip: () => {
        skipped = true;
        throw new Error("mocha skip");
      },
    } as unknown as Mocha.Context;
    assert.throws(() => skipForMissingService(ctx, "no broker"), /mocha skip/);
    assert.equal(skipped, true);
  });
});
