import assert from "node:assert/strict";
import { handler } from "../../../../nodes/steps/vision_analysis/vision_analysis.handler";
import { spec } from "../../../../nodes/steps/vision_analysis/vision_analysis.node";
import { openAiParts } from "../../../fakes/openai-chat-server";
import { configOf } from "../../filters/_support/tracking-db";
import { labelOfDataUrl, useLlmKit } from "../llm_call/llm-kit";

describe("vision_analysis step handler (legacy, runs as llm_call)", () => {
  const kit = useLlmKit();

  it("writes vision_response by default and sends the trigger's images", async () => {
    kit.image("uploads/a.jpg", "frame-a");
    kit.openai.script({ content: "A person is sitting on the sofa." });
    const config = configOf(spec, { model_id: "vision-vllm", prompt: "Describe the scene.", image_source: "trigger" });
    const result = await handler(kit.ctx(), kit.input({}, ["uploads/a.jpg"], "vision_analysis"), config);
    assert.deepEqual(result.data, { vision_response: "A person is sitting on the sofa." });
    const sent = openAiParts(kit.openai.requests[0].body.messages[0]);
    assert.equal(sent.text, "Describe the scene.");
    assert.deepEqual(sent.images.map(labelOfDataUrl), ["frame-a"]);
  });
});
