import assert from "node:assert/strict";
import { eventually } from "./eventually";

describe("eventually(): what tests wait on", () => {
  for (const notYet of [undefined, null, false, 0, ""] as const) {
    it(`does not take ${JSON.stringify(notYet) ?? "undefined"} for an answer`, async () => {
      await assert.rejects(
        eventually("a value", () => notYet, 60),
        /timed out waiting for a value/,
      );
    });
  }

  it("gives the first truthy value, waiting for it", async () => {
    let calls = 0;
    assert.equal(await eventually("the third call", () => (++calls >= 3 ? calls : 0)), 3);
  });
});
