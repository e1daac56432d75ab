import type { z } from "zod";
import type { DeviceStageHandler } from "../../_kit/device-types";
import type { spec } from "./store.node";

type Config = z.output<typeof spec.config>;

/** Stores the frame; the camera is answered once the frame is also in its batch (the aggregate stage). */
export const handler: DeviceStageHandler<Config> = async (ctx, message) => {
  if (message.payload.kind !== "camera") return { next: message };
  const stored = await ctx.services.storeFrame(message.device, message.payload.frame);
  return { next: { ...message, payload: { kind: "camera", frame: { ...message.payload.frame, stored } } } };
};
