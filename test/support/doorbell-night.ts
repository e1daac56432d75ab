/**
 * The recorded night the rehearsal tests share: a webhook rule "Door at night" that tells the
 * family who rang, and three rings at 02:00, 02:02 and 02:20, each run completed before the
 * clock moves on. Leaves the clock at 03:00.
 */
import assert from "node:assert/strict";
import type { ManualClock } from "../../runtime/platform/core/clock";
import { eventually } from "./eventually";
import type { TestApp } from "./test-app";

const MIN = 60_000;
export const DOORBELL_NIGHT = Date.parse("2026-11-20T02:00:00Z");

/** Imports the rule, rings three times; returns the rule's id. */
export async function recordDoorbellNight(t: TestApp, clock: ManualClock): Promise<number> {
  const imported = await t.post("/api/v1/rules/import", {
    schema_version: 1,
    rule: { name: "Door at night", trigger_type: "webhook" },
    steps: [
      {
        label: "Tell the family",
        step_type: "notification",
        schema_version: 1,
        config: { alert_level: "info", channels: ["pwa_popup_text", "chat_app"], message_template: "Someone at the door: {{trigger_input.who}}" },
      },
    ],
  });
  assert.equal(imported.status, 201, imported.text);
  const ruleId = imported.body.rule_id as number;
  const secret = (await t.post(`/api/v1/webhooks/${ruleId}/generate-secret`, {})).body.secret as string;
  for (const [i, who] of ["postman", "neighbour", "nurse"].entries()) {
    clock.set(DOORBELL_NIGHT + [0, 2, 20][i] * MIN);
    const hook = await t.request("POST", `/api/v1/webhooks/${ruleId}`, { key: null, headers: { "X-Webhook-Secret": secret }, body: { who } });
    assert.equal(hook.status, 200, hook.text);
    await eventually(`run ${i + 1} completed`, async () => (await t.get(`/api/v1/workflows/${hook.body.execution_id}`)).body.status === "completed");
  }
  clock.set(DOORBELL_NIGHT + 60 * MIN);
  return ruleId;
}
