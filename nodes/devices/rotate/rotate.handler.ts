import type { z } from "zod";
import { MAX_FRAME_PIXELS, type DeviceStageHandler } from "../../_kit/device-types";
import type { spec } from "./rotate.node";

type Config = z.output<typeof spec.config>;

export const handler: DeviceStageHandler<Config> = async (ctx, message) => {
  if (message.payload.kind !== "camera") return { next: message };
  const degrees = ctx.services.cameraOptions(message.device.sensor_id).rotate;
  if (!degrees) return { next: message };
  // The header's size before anything decodes the frame: a small file can declare gigapixels.
  const size = await ctx.services.frameSize(message.payload.frame.bytes);
  if (!size) return { reply: { status: 422, body: { detail: "data.image: the JPEG could not be decoded (no readable frame header)" } } };
  const pixels = size.width * size.height;
  if (pixels > MAX_FRAME_PIXELS) {
    ctx.services.log.info({ sensor_id: message.device.sensor_id, width: size.width, height: size.height }, "camera frame too large to rotate");
    return {
      reply: {
        status: 413,
        body: { detail: `data.image: ${size.width}x${size.height} is ${pixels} pixels, more than the ${MAX_FRAME_PIXELS} a frame may have` },
      },
    };
  }
  let bytes: Buffer;
  try {
    bytes = await ctx.services.rotateJpeg(message.payload.frame.bytes, degrees);
  } catch (err) {
    ctx.services.log.info({ sensor_id: message.device.sensor_id, err: String(err) }, "camera frame could not be decoded to rotate it");
    return { reply: { status: 422, body: { detail: "data.image: the JPEG could not be decoded" } } };
  }
  return { next: { ...message, payload: { kind: "camera", frame: { ...message.payload.frame, bytes, rotated: degrees } } } };
};
