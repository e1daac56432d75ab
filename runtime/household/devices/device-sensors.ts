/**
 * Every device key names a sensor; at startup that sensor is created if missing, with the
 * type its device implies (a camera device → `camera`, a display or terminal → `eink`).
 * An existing sensor keeps its name, room and config; only its type follows the device.
 */
import type { DeviceKeyEntry } from "../../../settings";
import { sensorTypeForDevice } from "../../platform/auth/roles";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { insertSensorRow, sensorTypeOf, updateSensorRow } from "../sensors/sensors.service";

export async function upsertDeviceSensors(ctx: PlatformContext, devices: readonly DeviceKeyEntry[]): Promise<void> {
  for (const d of devices) {
    const sensorType = sensorTypeForDevice(d.device_type);
    const now = isoNow(ctx.clock);
    const existingType = await sensorTypeOf(ctx, d.sensor_id);
    if (existingType === undefined) {
      await insertSensorRow(
        ctx.db,
        d.sensor_id,
        { name: d.name ?? d.sensor_id, sensor_type: sensorType, room_id: null, source: "device_key", enabled: true, config_json: "{}", updated_at: now },
        now,
      );
      ctx.log.info({ sensor_id: d.sensor_id, sensor_type: sensorType }, "sensor created for device key");
    } else if (existingType !== sensorType) {
      await updateSensorRow(ctx.db, d.sensor_id, { sensor_type: sensorType, updated_at: now });
      ctx.log.info({ sensor_id: d.sensor_id, sensor_type: sensorType }, "sensor type follows its device key");
    }
  }
}
