/**
 * A recorded pair of prompts the rehearsal tests share: a webhook rule "Check on Rose" asks
 * "Are you alright?" (60 s countdown, escalating when unanswered) and calls for help on an
 * escalation. The first time Rose answers "I'm okay" 20 s after the prompt; the second time she
 * does not answer. Each run completes before the clock moves on a minute.
 */
import assert from "node:assert/strict";
import type { ManualClock } from "../../runtime/platform/core/clock";
import { eventually } from "./eventually";
import type { TestApp } from "./test-app";

export interface CheckOnRose {
  ruleId: number;
  /** The recorded runs: the answered one, then the one left to its countdown. */
  runs: [answered: number, unanswered: number];
}

export async function recordCheckOnRose(t: TestApp, clock: ManualClock): Promise<CheckOnRose> {
  const imported = await t.post("/api/v1/rules/import", {
    schema_version: 1,
    rule: { name: "Check on Rose", trigger_type: "webhook" },
    steps: [
      { label: "ask", step_type: "interactive_prompt", schema_version: 1, config: { popup_message_template: "Are you alright?", countdown_seconds: 60 } },
      { label: "needs help?", step_type: "condition", config: { expression: "interactive_response.action == 'escalate'" } },
      {
        label: "call",
        step_type: "notification",
        schema_version: 1,
        config: { alert_level: "warning", channels: ["pwa_popup_text"], message_template: "Rose may need help" },
      },
    ],
    edges: [
      { source_label: "ask", source_port: "main", target_label: "needs help?" },
      { source_label: "needs help?", source_port: "true", target_label: "call" },
    ],
  });
  assert.equal(imported.status, 201, imported.text);
  const ruleId = imported.body.rule_id as number;
  const secret = (await t.post(`/api/v1/webhooks/${ruleId}/generate-secret`, {})).body.secret as string;
  const runs: number[] = [];
  for (const answers of [true, false]) {
    const hook = await t.request("POST", `/api/v1/webhooks/${ruleId}`, { key: null, headers: { "X-Webhook-Secret": secret }, body: {} });
    assert.equal(hook.status, 200, hook.text);
    const exec = hook.body.execution_id as number;
    const prompt = await eventually("the prompt", async () => t.app.ctx.db("interactive_prompts").where({ execution_id: exec }).first());
    clock.advance(answers ? 20_000 : 61_000);
    if (answers) {
      const answered = await t.post("/api/v1/interactive-responses", {
        execution_id: exec,
        step_id: prompt.step_id,
        channel: "pwa_popup_text",
        action: "dismiss",
      });
      assert.equal(answered.body.success, true, answered.text);
    }
    await eventually(`run ${exec} completed`, async () => (await t.get(`/api/v1/workflows/${exec}`)).body.status === "completed");
    runs.push(exec);
    clock.advance(60_000);
  }
  return { ruleId, runs: [runs[0], runs[1]] };
}
