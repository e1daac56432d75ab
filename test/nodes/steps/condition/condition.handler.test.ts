import assert from "node:assert/strict";
import { checkConfig } from "../../../../nodes/_kit/config";
import { handler } from "../../../../nodes/steps/condition/condition.handler";
import { spec } from "../../../../nodes/steps/condition/condition.node";
import { handlerContext, stepInput } from "../../handler-context";

const config = (c: Record<string, unknown>) => {
  const check = checkConfig(spec, c);
  assert.ok(check.ok);
  return check.config as { expression: string; trigger_cooloff: boolean };
};

describe("condition handler", () => {
  const cases: Array<[string, Record<string, unknown>, "true" | "false"]> = [
    ["person_detections.count > 0", { person_detections: [{ name: "Rose" }] }, "true"],
    ["person_detections.count > 0", {}, "false"],
    ["interactive_response.action == 'escalate'", { interactive_response: { action: "escalate" } }, "true"],
    ["not verification.verified", { verification: { verified: false } }, "true"],
    ["", { a: 1 }, "false"],
  ];
  for (const [expression, data, branch] of cases) {
    it(`${JSON.stringify(expression)} → ${branch}`, async () => {
      const r = await handler(handlerContext(), stepInput(data), config({ expression }));
      assert.deepEqual(r.output_ports, [branch]);
      assert.deepEqual(r.data?.condition, { expression, result: branch === "true", branch });
    });
  }

  it("marks cool-off only when asked and true", async () => {
    const on = config({ expression: "x == 1", trigger_cooloff: true });
    assert.equal((await handler(handlerContext(), stepInput({ x: 1 }), on)).data?._cooloff_triggered, true);
    assert.equal((await handler(handlerContext(), stepInput({ x: 2 }), on)).data?._cooloff_triggered, undefined);
    assert.equal((await handler(handlerContext(), stepInput({ x: 1 }), config({ expression: "x == 1" }))).data?._cooloff_triggered, undefined);
  });
});
