import type { z } from "zod";
import type { DeviceStageHandler } from "../../_kit/device-types";
import type { spec } from "./aggregate.node";

type Config = z.output<typeof spec.config>;

/**
 * Hands the stored frame to its camera's aggregator, then answers the camera: "accepted" means
 * stored and counted in its batch, so a crash right after the answer loses neither.
 */
export const handler: DeviceStageHandler<Config> = async (ctx, message) => {
  if (message.payload.kind !== "camera") return { next: message };
  const stored = message.payload.frame.stored;
  if (!stored) return { reply: { status: 500, body: { detail: "the frame reached the aggregate node before it was stored: wire the store node before it" } } };
  await ctx.services.aggregate(message.device, message.payload.frame);
  return { reply: { status: 200, body: { status: "accepted", object_name: stored.object_name } }, next: message };
};
