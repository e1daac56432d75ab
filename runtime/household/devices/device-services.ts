/**
 * What the Devices tab's nodes may ask of the app (`DeviceServices`, nodes/_kit/device-types.ts):
 * the camera options from the settings, rotating a JPEG (sharp: libvips turns and re-encodes a
 * 640x480 frame in a few milliseconds off the event loop), the media store, the aggregator,
 * alert actions and publishing a press or command on the bus.
 */
import {
  MAX_FRAME_PIXELS,
  type AlertActionResult,
  type PostedFrame,
  type DeviceIdentity,
  type DeviceServices,
  type TerminalInput,
} from "../../../nodes/_kit/device-types";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { ConflictError } from "../../platform/core/errors";
import { sharpLib } from "../../platform/core/sharp-lib";
import { actOnAlert, getAlert, listAlerts } from "../alerts/alerts.service";
import { storeFrame } from "../media/media.service";
import type { FrameAggregator } from "./aggregator";

/** JPEG quality of a rotated frame: close to what cameras send, so a model sees no new artefacts. */
const ROTATED_JPEG_QUALITY = 90;

export function deviceServices(ctx: PlatformContext, aggregator: FrameAggregator): DeviceServices {
  const log = ctx.log.child({ component: "devices" });
  return {
    log: {
      debug: (o, m) => log.debug(o, m),
      info: (o, m) => log.info(o, m),
      warn: (o, m) => log.warn(o, m),
    },
    now: () => isoNow(ctx.clock),
    cameraOptions: (sensorId) => ctx.settings.cameras[sensorId] ?? {},
    // libvips reads only the header for the metadata: a 12,000² bomb is measured, not decoded.
    frameSize: async (bytes) => {
      const meta = await sharpLib()(bytes, { limitInputPixels: false })
        .metadata()
        .catch(() => null);
      return meta?.width && meta.height ? { width: meta.width, height: meta.height } : null;
    },
    // The rotate stage checked the header's size; the limit here refuses a frame whose header lied.
    rotateJpeg: (bytes, degrees) =>
      sharpLib()(bytes, { failOn: "error", limitInputPixels: MAX_FRAME_PIXELS }).rotate(degrees).jpeg({ quality: ROTATED_JPEG_QUALITY }).toBuffer(),
    storeFrame: (device: DeviceIdentity, frame: PostedFrame) =>
      storeFrame(ctx, {
        sensor_id: device.sensor_id,
        room_name: device.room_name,
        bytes: frame.bytes,
        content_type: "image/jpeg",
        labels: frame.labels,
        boxes: frame.boxes,
        captured_at: frame.received_at,
      }),
    aggregate: async (device, frame) => {
      if (!frame.stored) return { batch: "off" };
      const batch = await aggregator.add({
        sensor_id: device.sensor_id,
        room_name: device.room_name,
        media_id: frame.stored.media_id,
        path: frame.stored.path,
      });
      return { batch };
    },
    actOnNewestAlert: async (action, actor, alertId): Promise<AlertActionResult | null> => {
      const target =
        alertId !== null ? await getAlert(ctx, alertId).catch(() => null) : ((await listAlerts(ctx, { resolved: false, limit: 1, offset: 0 }))[0] ?? null);
      if (!target || target.resolved) return null;
      try {
        await actOnAlert(ctx, target.id, { action }, actor);
      } catch (err) {
        if (err instanceof ConflictError) return null; // resolved by someone else a moment ago
        throw err;
      }
      log.info({ alert_id: target.id, action, actor }, "alert acted on from a terminal");
      return { alert_id: target.id, action, level: target.level };
    },
    publishDeviceEvent: (device: DeviceIdentity, input: TerminalInput) => {
      ctx.bus.publish("sensor.event", {
        kind: input.event,
        sensor_id: device.sensor_id,
        room_name: device.room_name,
        input: { source: device.kind, button: input.button, command: input.command, args: [...input.args] },
      });
    },
  };
}
