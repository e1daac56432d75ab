import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./info_card.node";

type Config = z.output<typeof spec.config>;

/**
 * Shows the card on its channels through the knowledge delivery service, which records the
 * delivery and a receipt per channel. A card reaching no channel is a warning on the step
 * (the run goes on: a card is information, not an alarm); an unknown or unapproved card fails it.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  if (config.card_id === undefined) throw new Error("card_id: choose the card (required before the step can run)");
  const delivered = await ctx.services.knowledge.deliverCard(
    {
      card_id: config.card_id,
      channels: config.channels,
      eink_targets: config.eink_targets ?? [],
      eink_expiry_minutes: config.eink_expiry_minutes,
      voice_instruction: config.voice_instruction ? ctx.services.templates.render(config.voice_instruction, input.pipeline_data).trim() || null : null,
      rule_id: input.rule_id,
      execution_id: input.execution_id,
      step_id: input.step.id,
    },
    ctx.signal,
  );
  const reached = delivered.receipts.filter((r) => r.delivered);
  return {
    data: {
      info_card: { delivery_id: delivered.delivery_id, card_id: config.card_id, title: delivered.card_title, receipts: delivered.receipts },
    },
    receipts: delivered.receipts,
    trace: { message: delivered.card_title },
    ...(reached.length === 0 ? { warning: `the card reached no channel: ${delivered.receipts.map((r) => `${r.channel}: ${r.detail}`).join("; ")}` } : {}),
  };
};
