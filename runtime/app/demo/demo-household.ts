/** The demo household seeded on first start when the store is empty. */
import type { Knex } from "knex";
import type { AppContext } from "../context";
import { isoNow } from "../../platform/core/clock";
import { toJsonText } from "../../platform/db/json-column";
import { countPersons, insertPersonRow } from "../../household/persons/persons.service";
import { countRooms, insertRoomRow } from "../../household/rooms/rooms.service";
import { insertSensorRow, sensorRowExists, updateSensorRow } from "../../household/sensors/sensors.service";

const ROOMS = ["kitchen", "bedroom", "bathroom", "hallway", "living room"];

interface DemoSensor {
  sensor_id: string;
  name: string;
  sensor_type: string;
  room: string;
  source: string;
  config?: Record<string, unknown>;
}

const SENSORS: DemoSensor[] = [
  {
    sensor_id: "kitchen_cam",
    name: "Kitchen camera",
    sensor_type: "camera",
    room: "kitchen",
    source: "device_key",
    config: { movement_map: { "left-to-right": "entering", "right-to-left": "exiting", stationary: "stationary" } },
  },
  { sensor_id: "binary_sensor.kitchen_presence", name: "Kitchen presence", sensor_type: "presence", room: "kitchen", source: "hub" },
  { sensor_id: "binary_sensor.bedroom_presence", name: "Bedroom presence", sensor_type: "presence", room: "bedroom", source: "hub" },
  { sensor_id: "binary_sensor.bathroom_presence", name: "Bathroom presence", sensor_type: "presence", room: "bathroom", source: "hub" },
  { sensor_id: "binary_sensor.hallway_presence", name: "Hallway presence", sensor_type: "presence", room: "hallway", source: "hub" },
  { sensor_id: "binary_sensor.living_room_presence", name: "Living room presence", sensor_type: "presence", room: "living room", source: "hub" },
  { sensor_id: "sensor.living_room_illuminance", name: "Living room light", sensor_type: "light", room: "living room", source: "hub" },
  { sensor_id: "hallway_display", name: "Hallway e-ink display", sensor_type: "eink", room: "hallway", source: "device_key" },
  { sensor_id: "bedside_terminal", name: "Bedside terminal", sensor_type: "eink", room: "bedroom", source: "device_key" },
];

export async function isStoreEmpty(db: Knex): Promise<boolean> {
  return (await countRooms({ db })) === 0 && (await countPersons({ db })) === 0;
}

export async function seedDemoHousehold(ctx: AppContext): Promise<void> {
  const now = isoNow(ctx.clock);
  await ctx.db.transaction(async (trx) => {
    const roomIds = new Map<string, number>();
    for (const name of ROOMS) roomIds.set(name, await insertRoomRow(trx, name, now));
    for (const s of SENSORS) {
      const values = {
        name: s.name,
        sensor_type: s.sensor_type,
        room_id: roomIds.get(s.room) ?? null,
        source: s.source,
        enabled: true,
        config_json: toJsonText(s.config ?? {}),
        updated_at: now,
      };
      if (await sensorRowExists(trx, s.sensor_id)) await updateSensorRow(trx, s.sensor_id, values);
      else await insertSensorRow(trx, s.sensor_id, values, now);
    }
    await insertPersonRow(trx, {
      person_id: "rose",
      display_name: "Grandma Rose",
      notes: "Demo household member",
      cts_alert_config: toJsonText({
        enabled_kinds: ["absence", "nighttime_movement", "stillness_anomaly", "bathroom_dwell_anomaly"],
        min_severity: "warning",
      }),
      created_at: now,
      updated_at: now,
    });
  });
  ctx.log.info({ rooms: ROOMS.length, sensors: SENSORS.length }, "demo household seeded");
}
