/** The one composition of a voice instruction: step override, resource, default, then the base. */
import assert from "node:assert/strict";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { composeVoiceInstruction, deliveryInstruction } from "../../../../../runtime/care/services/knowledge/voice/voice-defaults";
import { composeInstructions } from "../../../../../runtime/care/surfaces/voice/voice-instructions";

describe("knowledge: voice instruction composition", () => {
  it("takes the most specific non-blank layer, then always the base", () => {
    const base = "You are the companion.";
    assert.equal(composeVoiceInstruction({ step: "Step.", resource: "Card.", default: "Default.", base }), "Step.\n\nYou are the companion.");
    assert.equal(composeVoiceInstruction({ step: "  ", resource: "Card.", default: "Default.", base }), "Card.\n\nYou are the companion.");
    assert.equal(composeVoiceInstruction({ step: null, resource: null, default: "Default.", base }), "Default.\n\nYou are the companion.");
    assert.equal(composeVoiceInstruction({ base }), "You are the companion.");
  });

  it("is what the voice companion's prompts use (one composition, not two)", () => {
    assert.equal(composeInstructions("Base.", "Ask kindly.", "careflow"), "Ask kindly.\n\nBase.");
    assert.equal(composeInstructions(null, null, "careflow", { default: "Prompt default." }).split("\n\n")[0], "Prompt default.");
    assert.match(composeInstructions(null, null, "careflow"), /voice companion of careflow/);
  });

  it("gives a delivery its step's, else its card's or quiz's, else the type's default instruction", () => {
    const settings = buildSettings({ knowledge: { voice_defaults: { quiz_default: "Quiz default." } } });
    assert.equal(deliveryInstruction(settings, "quiz", " ", null), "Quiz default.");
    assert.equal(deliveryInstruction(settings, "quiz", null, "Quiz column."), "Quiz column.");
    assert.equal(deliveryInstruction(settings, "info_card", "Step.", "Card column."), "Step.");
    assert.match(deliveryInstruction(settings, "info_card") ?? "", /information card/);
  });
});
