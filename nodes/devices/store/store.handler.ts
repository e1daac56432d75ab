import type { z } from "zod";
import type { DeviceStageHandler } from "../../_kit/device-types";
import type { spec } from "./store.node";

type Config = z.output<typeof spec.config>;

export const handler: DeviceStageHandler<Config> = async (ctx, message) => {
  if (message.payload.kind !== "camera") return { next: message };
  const stored = await ctx.services.storeFrame(message.device, message.payload.frame);
  return {
    reply: { status: 200, body: { status: "accepted", object_name: stored.object_name } },
    next: { ...message, payload: { kind: "camera", frame: { ...message.payload.frame, stored } } },
  };
};
