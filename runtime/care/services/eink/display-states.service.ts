/** The state of every display, for `GET /image/states` and the MCP status tool. */
import type { CareContext } from "../../core/context";
import { listSensors } from "../../../household/sensors/sensors.service";
import { listDeviceStates, type DeviceStateRow } from "./device-states.store";
import { imageExists } from "./image-store";
import { isExpired } from "./serving.service";

export interface DisplayState {
  sensor_id: string;
  has_active_image: boolean;
  expired: boolean;
  expires_at: string | null;
  rendered_text: string | null;
  template_id: number | null;
  last_served_hash: string | null;
  last_served_at: string | null;
}

async function toDisplayState(ctx: CareContext, sensorId: string, row: DeviceStateRow | undefined): Promise<DisplayState> {
  const hasImage = !!row?.image_hash && (await imageExists(ctx, row.image_hash));
  return {
    sensor_id: sensorId,
    has_active_image: hasImage,
    expired: hasImage && !!row && isExpired(row, ctx.clock.now()),
    expires_at: row?.expires_at ?? null,
    rendered_text: row?.rendered_text ?? null,
    template_id: row?.template_id ?? null,
    last_served_hash: row?.last_served_hash ?? null,
    last_served_at: row?.last_served_at ?? null,
  };
}

/** Every e-ink sensor (with or without a state yet) and every display that has a state. */
export async function displayStates(ctx: CareContext, sensorId?: string): Promise<DisplayState[]> {
  const [sensors, rows] = await Promise.all([listSensors(ctx, { sensor_type: "eink" }), listDeviceStates(ctx)]);
  const byId = new Map(rows.map((r) => [r.sensor_id, r]));
  const ids = [...new Set([...sensors.map((s) => s.sensor_id), ...rows.map((r) => r.sensor_id)])].sort();
  return Promise.all(ids.filter((id) => sensorId === undefined || id === sensorId).map((id) => toDisplayState(ctx, id, byId.get(id))));
}
