import type { z } from "zod";
import type { DeviceStageHandler } from "../../_kit/device-types";
import type { spec } from "./rotate.node";

type Config = z.output<typeof spec.config>;

export const handler: DeviceStageHandler<Config> = async (ctx, message) => {
  if (message.payload.kind !== "camera") return { next: message };
  const degrees = ctx.services.cameraOptions(message.device.sensor_id).rotate;
  if (!degrees) return { next: message };
  let bytes: Buffer;
  try {
    bytes = await ctx.services.rotateJpeg(message.payload.frame.bytes, degrees);
  } catch (err) {
    ctx.services.log.info({ sensor_id: message.device.sensor_id, err: String(err) }, "camera frame could not be decoded to rotate it");
    return { reply: { status: 422, body: { detail: "data.image: the JPEG could not be decoded" } } };
  }
  return { next: { ...message, payload: { kind: "camera", frame: { ...message.payload.frame, bytes, rotated: degrees } } } };
};
