/**
 * Importing the hub's areas as rooms and its area sensors as sensors (spec: "Occupancy and home
 * hub sync"). Idempotent: a second sync of an unchanged hub creates nothing and reports every
 * row unchanged. It links a room to its area by `ha_area_id` (an existing room of the same name
 * is linked rather than duplicated), and it never deletes anything; a sensor someone made by
 * hand keeps its name and room, only the sync's own (`source: "hub"`) follow the hub.
 */
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { createRoom, findRoomByName, listRooms, updateRoom } from "../rooms/rooms.service";
import { findSensor, insertSensorRow, updateSensorRow } from "../sensors/sensors.service";
import type { HubClient } from "./hub-client";
import type { HubState } from "./hub-protocol";

export interface SyncReport {
  created: number;
  updated: number;
  unchanged: number;
  skipped: Array<{ id: string; reason: string }>;
  total: number;
}

const report = (): SyncReport => ({ created: 0, updated: 0, unchanged: 0, skipped: [], total: 0 });

export async function syncRooms(ctx: PlatformContext, client: HubClient): Promise<SyncReport> {
  const out = report();
  const areas = await client.areas();
  out.total = areas.length;
  for (const area of areas) {
    const rooms = await listRooms(ctx);
    const linked = rooms.find((r) => r.ha_area_id === area.area_id);
    if (linked) {
      if (linked.name === area.name) out.unchanged++;
      else {
        const clash = await findRoomByName(ctx, area.name);
        if (clash && clash.id !== linked.id) out.skipped.push({ id: area.area_id, reason: `another room is already named '${clash.name}'` });
        else {
          await updateRoom(ctx, linked.id, { name: area.name });
          out.updated++;
        }
      }
      continue;
    }
    const sameName = await findRoomByName(ctx, area.name);
    if (sameName && !sameName.ha_area_id) {
      await updateRoom(ctx, sameName.id, { ha_area_id: area.area_id });
      out.updated++;
    } else if (sameName) {
      out.skipped.push({ id: area.area_id, reason: `room '${sameName.name}' is linked to hub area '${sameName.ha_area_id}'` });
    } else {
      await createRoom(ctx, { name: area.name, ha_area_id: area.area_id, floor: area.floor_id ?? null });
      out.created++;
    }
  }
  ctx.log.info({ ...out, skipped: out.skipped.length }, "hub areas synced as rooms");
  return out;
}

const PRESENCE_CLASSES = new Set(["motion", "occupancy", "presence", "door", "opening", "moving"]);

/** The household sensor type of a hub entity, or null for entities careflow does not use. */
export function sensorTypeOf(entityId: string, state: HubState | undefined): "presence" | "light" | "button" | null {
  const [domain] = entityId.split(".");
  const deviceClass = String(state?.attributes.device_class ?? "");
  if (domain === "binary_sensor" && (PRESENCE_CLASSES.has(deviceClass) || /presence|motion|occupancy|bed/.test(entityId))) return "presence";
  if (domain === "sensor" && (deviceClass === "illuminance" || /illuminance|lux/.test(entityId))) return "light";
  if (domain === "input_button" || domain === "button" || domain === "event") return "button";
  return null;
}

export async function syncSensors(ctx: PlatformContext, client: HubClient, onlyRoom?: string): Promise<SyncReport> {
  const out = report();
  const [entities, devices] = await Promise.all([client.entityRegistry(), client.deviceRegistry()]);
  const deviceArea = new Map(devices.map((d) => [d.id, d.area_id]));
  const rooms = (await listRooms(ctx)).filter((r) => r.ha_area_id && (onlyRoom === undefined || r.name.toLowerCase() === onlyRoom.toLowerCase()));
  const roomOfArea = new Map(rooms.map((r) => [r.ha_area_id!, r]));
  const now = isoNow(ctx.clock);
  for (const entity of entities) {
    if (entity.disabled_by) continue;
    const areaId = entity.area_id ?? (entity.device_id ? (deviceArea.get(entity.device_id) ?? null) : null);
    const room = areaId ? roomOfArea.get(areaId) : undefined;
    if (!room) continue;
    out.total++;
    const state = client.state(entity.entity_id);
    const type = sensorTypeOf(entity.entity_id, state);
    if (!type) {
      out.skipped.push({ id: entity.entity_id, reason: "not a presence, light or button entity" });
      continue;
    }
    const name = String(state?.attributes.friendly_name ?? entity.name ?? entity.original_name ?? entity.entity_id).slice(0, 200);
    const existing = await findSensor(ctx, entity.entity_id);
    if (!existing) {
      await insertSensorRow(
        ctx.db,
        entity.entity_id,
        { name, sensor_type: type, room_id: room.id, source: "hub", enabled: true, config_json: "{}", updated_at: now },
        now,
      );
      out.created++;
    } else if (existing.source !== "hub" || (existing.name === name && existing.room_id === room.id && existing.sensor_type === type)) {
      out.unchanged++;
    } else {
      await updateSensorRow(ctx.db, entity.entity_id, { name, room_id: room.id, sensor_type: type, updated_at: now });
      out.updated++;
    }
  }
  ctx.log.info({ ...out, skipped: out.skipped.length }, "hub sensors synced");
  return out;
}
