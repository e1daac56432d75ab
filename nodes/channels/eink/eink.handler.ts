import type { z } from "zod";
import type { EinkRenderRequest } from "../../../vocabulary/eink";
import type { ChannelHandler } from "../../_kit/handler-types";
import type { spec } from "./eink.node";

type Config = z.output<typeof spec.config>;

// The render request's limit; a longer message is cut rather than refused (the card truncates anyway).
const MAX_TEXT = 5000;

/** A template given as a number (or digits) is an id; any other text is a template name. */
function templateRef(ref: Config["template_id"]): Pick<EinkRenderRequest, "template_id" | "template"> {
  if (ref === undefined) return {};
  if (typeof ref === "number") return { template_id: ref };
  return /^\d+$/.test(ref) ? { template_id: Number(ref) } : { template: ref };
}

/**
 * Renders the message onto the template and makes it the active image of the targets
 * (`eink_targets`, else `notifications.eink.default_targets`, else every display) until it
 * expires; the displays pick it up on their next poll. A render that is refused (unknown
 * display or template, no display at all) is not delivered, with the reason.
 */
export const handler: ChannelHandler<Config> = async (ctx, message, config) => {
  try {
    const receipt = await ctx.services.eink.render({
      text: message.message.slice(0, MAX_TEXT),
      ...templateRef(config.template_id),
      ...(config.targets.length > 0 ? { sensor_ids: config.targets } : {}),
      expires_in_minutes: config.expiry_minutes,
      ...(config.dither ? { color_mode: "bw_dither" } : {}),
      alert_level: message.alert_level,
    });
    if (receipt.sensor_ids.length === 0) return { channel: "eink", delivered: false, detail: "no e-ink display to show it on" };
    return { channel: "eink", delivered: true, detail: `shown on ${receipt.sensor_ids.join(", ")} until ${receipt.expires_at}` };
  } catch (err) {
    return { channel: "eink", delivered: false, detail: `e-ink render refused: ${err instanceof Error ? err.message : String(err)}` };
  }
};
