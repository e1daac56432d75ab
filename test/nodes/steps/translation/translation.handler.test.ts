import assert from "node:assert/strict";
import { handler } from "../../../../nodes/steps/translation/translation.handler";
import { spec } from "../../../../nodes/steps/translation/translation.node";
import { configOf } from "../../filters/_support/tracking-db";
import { useLlmKit } from "../llm_call/llm-kit";

describe("translation step handler (legacy, runs as llm_call)", () => {
  const kit = useLlmKit();

  it("writes translation by default, over Ollama too", async () => {
    kit.ollama.script({ content: "Rose ist in der Küche." });
    const config = configOf(spec, { model_id: "llava", prompt: "Translate to German: {{message}}" });
    const result = await handler(kit.ctx(), kit.input({ message: "Rose is in the kitchen." }, [], "translation"), config);
    assert.deepEqual(result.data, { translation: "Rose ist in der Küche." });
    assert.equal(kit.ollama.requests[0].body.messages[0].content, "Translate to German: Rose is in the kitchen.");
  });
});
