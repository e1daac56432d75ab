import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import { blankToNull } from "../../_kit/values";
import type { spec } from "./hub_action.node";

type Config = z.output<typeof spec.config>;

/**
 * Calls the hub service (reference: output `hub_action {domain, service, entity_id, success}`).
 * No hub, a service outside `hub.allowed_services`, or a refusal by the hub: success=false with
 * the reason, and the run goes on.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const entity_id = blankToNull(config.entity_id ? ctx.services.templates.render(config.entity_id, input.pipeline_data) : undefined);
  const answer = await ctx.services.hub.call({ domain: config.domain, service: config.service, entity_id, data: config.data }, ctx.signal);
  const hub_action = { domain: config.domain, service: config.service, entity_id, success: answer.ok };
  if (!answer.ok) return { success: false, data: { hub_action }, error: answer.reason, warning: `hub action not done: ${answer.reason}` };
  return { data: { hub_action, ...(config.trigger_cooloff ? { _cooloff_triggered: true } : {}) } };
};
