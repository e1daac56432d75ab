import type { z } from "zod";
import type { AppContext } from "../../../runtime/context";
import { deliveredByChannel, deliveryWarning } from "../../../runtime/notify/dispatch";
import { sendNotification } from "../../../runtime/notify/notify.service";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./notification.spec";

type Config = z.output<typeof spec.config>;

/**
 * Sends through the level's channels (or the step's own list) and, for a warning or an
 * emergency, raises an alert that escalates until acknowledged. When an earlier step said
 * no notification is needed (`notification_suppressed`), nothing is sent, no alert is
 * raised and the run is not marked for cool-off: nothing happened.
 */
export const handler: StepHandler<Config, AppContext> = async (ctx, input, config) => {
  if (input.pipeline_data.notification_suppressed === true) {
    ctx.log.info({ execution_id: input.execution_id, step: input.step.label }, "notification suppressed by an earlier step; nothing sent");
    return { data: { notification_dispatched: false, notification_channels: {} } };
  }
  const { receipts, plan } = await sendNotification(ctx, input, config);
  const dispatched = receipts.some((r) => r.delivered);
  const warning = deliveryWarning(receipts);
  // The trace shows one message: the channels' texts differ only by their own templates.
  const message = [...new Set(Object.values(plan.messages))].join("\n—\n");
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
