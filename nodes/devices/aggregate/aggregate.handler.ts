import type { z } from "zod";
import type { DeviceStageHandler } from "../../_kit/device-types";
import type { spec } from "./aggregate.node";

type Config = z.output<typeof spec.config>;

export const handler: DeviceStageHandler<Config> = async (ctx, message) => {
  if (message.payload.kind !== "camera" || !message.payload.frame.stored) return { next: message };
  await ctx.services.aggregate(message.device, message.payload.frame);
  return { next: message };
};
