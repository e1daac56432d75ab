import assert from "node:assert/strict";
import { handler } from "../../../../nodes/steps/logic_reasoning/logic_reasoning.handler";
import { spec } from "../../../../nodes/steps/logic_reasoning/logic_reasoning.node";
import { openAiParts } from "../../../fakes/openai-chat-server";
import { configOf } from "../../filters/_support/tracking-db";
import { useLlmKit } from "../llm_call/llm-kit";

describe("logic_reasoning step handler (legacy, runs as llm_call)", () => {
  const kit = useLlmKit();
  const run = (config: Record<string, unknown>, data: Record<string, unknown> = {}) =>
    handler(kit.ctx(), kit.input(data, [], "logic_reasoning"), configOf(spec, { model_id: "text-vllm", prompt: "Should we alert?", ...config }));

  it("writes logic_response and notification_suppressed when no notification is needed", async () => {
    kit.openai.script({ content: '{"is_notification_needed": false, "user_notification": ""}' });
    const result = await run({ response_format: "json_free" }, { vision_response: "Rose is asleep." });
    assert.deepEqual(result.data, { logic_response: { is_notification_needed: false, user_notification: "" }, notification_suppressed: true });
    assert.match(openAiParts(kit.openai.requests[0].body.messages[0]).text, /"vision_response": "Rose is asleep\."/, "vision_response is auto-included");
  });

  it("lets the notification through when it is needed", async () => {
    kit.openai.script({ content: '{"is_notification_needed": true, "user_notification": "Rose fell"}' });
    assert.deepEqual((await run({ response_format: "json_free" })).data, { logic_response: { is_notification_needed: true, user_notification: "Rose fell" } });
  });
});
