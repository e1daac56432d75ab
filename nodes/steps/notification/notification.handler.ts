import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import { deliveredByChannel, deliveryWarning } from "../../_kit/receipts";
import type { spec } from "./notification.node";

type Config = z.output<typeof spec.config>;

/**
 * Sends through the level's channels (or the step's own list) and, for a warning or an
 * emergency, raises an alert that escalates until acknowledged. When an earlier step said
 * no notification is needed (`notification_suppressed`), nothing is sent, no alert is
 * raised and the run is not marked for cool-off: nothing happened.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  if (input.pipeline_data.notification_suppressed === true) {
    ctx.log.info({ execution_id: input.execution_id, step: input.step.label }, "notification suppressed by an earlier step; nothing sent");
    return { data: { notification_dispatched: false, notification_channels: {} } };
  }
  const { receipts, messages, names } = await ctx.services.notify.send(input, config, ctx.signal);
  const dispatched = receipts.some((r) => r.delivered);
  const warning = deliveryWarning(receipts, names);
  // The trace shows one message: the channels' texts differ only by their own templates.
  const message = [...new Set(Object.values(messages))].join("\n—\n");
  return {
    receipts,
    ...(warning ? { warning } : {}),
    trace: { message },
    data: {
      notification_dispatched: dispatched,
      notification_channels: deliveredByChannel(receipts),
      ...(config.trigger_cooloff ? { _cooloff_triggered: true } : {}),
    },
  };
};
