import type { z } from "zod";
import type { DeviceStageHandler } from "../../_kit/device-types";
import type { spec } from "./terminal.node";

type Config = z.output<typeof spec.config>;

export const handler: DeviceStageHandler<Config> = async (ctx, message) => {
  if (message.payload.kind !== "terminal") return { next: message };
  const input = message.payload.input;
  const pressed = input.button === "double" ? ctx.config.double_press : input.button === "long" ? ctx.config.long_press : ctx.config.single_press;
  const action = input.action ?? (input.event === "button" ? pressed : "none");
  const alert = action === "none" ? null : await ctx.services.actOnNewestAlert(action, `terminal:${message.device.name}`, input.alert_id);
  if (input.alert_id !== null && action !== "none" && !alert) {
    return { reply: { status: 404, body: { detail: `alert_id: no open alert ${input.alert_id}` } } };
  }
  ctx.services.publishDeviceEvent(message.device, input);
  return {
    reply: {
      status: 200,
      body: {
        status: "accepted",
        event: input.event,
        button: input.button,
        command: input.command,
        alert: alert ? { id: alert.alert_id, action: alert.action, level: alert.level } : null,
      },
    },
    next: message,
  };
};
