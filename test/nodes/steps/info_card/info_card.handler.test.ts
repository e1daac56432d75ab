import assert from "node:assert/strict";
import { checkConfig } from "../../../../nodes/_kit/config";
import type { CardDeliveryRequest } from "../../../../vocabulary/knowledge";
import { handler } from "../../../../nodes/steps/info_card/info_card.handler";
import { spec } from "../../../../nodes/steps/info_card/info_card.node";
import { handlerContext, stepInput } from "../../handler-context";

describe("info_card handler", () => {
  const run = async (config: Record<string, unknown>, receipts: Array<[string, boolean, string]>, data: Record<string, unknown> = {}) => {
    const check = checkConfig(spec, config);
    assert.ok(check.ok, JSON.stringify(check));
    const asked: CardDeliveryRequest[] = [];
    const ctx = handlerContext({
      knowledge: {
        deliverCard: async (req) => {
          asked.push(req);
          return { delivery_id: 7, card_title: "Anna visits", receipts: receipts.map(([channel, delivered, detail]) => ({ channel, delivered, detail })) };
        },
      },
    });
    const result = await handler(ctx, stepInput(data, "info_card"), check.config as never);
    return { result, asked: asked[0] };
  };

  it("asks for the card on the web app by default, with the run's ids", async () => {
    const { asked, result } = await run({ card_id: 3 }, [["pwa", true, "shown on 1 screen"]]);
    assert.deepEqual(asked, {
      card_id: 3,
      channels: ["pwa"],
      eink_targets: [],
      eink_expiry_minutes: 30,
      voice_instruction: null,
      rule_id: 1,
      execution_id: 1,
      step_id: 1,
    });
    assert.deepEqual(result.data?.info_card, {
      delivery_id: 7,
      card_id: 3,
      title: "Anna visits",
      receipts: [{ channel: "pwa", delivered: true, detail: "shown on 1 screen" }],
    });
    assert.equal(result.warning, undefined);
  });

  it("renders the voice instruction from pipeline_data and passes the e-ink options", async () => {
    const { asked } = await run(
      { card_id: 3, channels: ["eink", "voice"], eink_targets: ["hall"], eink_expiry_minutes: 90, voice_instruction: "Speak to {{name}} slowly" },
      [
        ["eink", true, "shown"],
        ["voice", true, "spoken"],
      ],
      { name: "Rose" },
    );
    assert.deepEqual(
      [asked.channels, asked.eink_targets, asked.eink_expiry_minutes, asked.voice_instruction],
      [["eink", "voice"], ["hall"], 90, "Speak to Rose slowly"],
    );
  });

  it("warns when the card reached no channel, saying why for each", async () => {
    const { result } = await run({ card_id: 3, channels: ["pwa", "voice"] }, [
      ["pwa", false, "no tablet has the care app open"],
      ["voice", false, "no voice model is set up for the voice companion"],
    ]);
    assert.match(result.warning ?? "", /reached no channel: pwa: no tablet has the care app open; voice: no voice model is set up/);
    assert.equal(result.receipts?.length, 2);
  });

  it("needs a card and at least one known channel", () => {
    assert.deepEqual(spec.requiredToRun, ["card_id"], "a rule without its card does not deploy");
    assert.equal(checkConfig(spec, { card_id: 1, channels: [] }).ok, false);
    assert.equal(checkConfig(spec, { card_id: 1, channels: ["fax"] }).ok, false);
    assert.equal(checkConfig(spec, { card_id: "x" }).ok, false);
  });
});
