/** The demo household seeded on first start when the store is empty. */
import type { Knex } from "knex";
import type { AppContext } from "../context";
import { isoNow } from "../../platform/core/clock";
import { toJsonText } from "../../platform/db/json-column";
import { roomNameColumns } from "../../household/rooms/rooms.service";

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
  const rooms = await db("rooms").count<{ n: number | string }[]>({ n: "*" });
  const persons = await db("persons").count<{ n: number | string }[]>({ n: "*" });
  return Number(rooms[0].n) === 0 && Number(persons[0].n) === 0;
}

export async function seedDemoHousehold(ctx: AppContext): Promise<void> {
  const now = isoNow(ctx.clock);
  await ctx.db.transaction(async (trx) => {
    const roomIds = new Map<string, number>();
    for (const name of ROOMS) {
      const [row] = await trx("rooms").insert({ ...roomNameColumns(name), created_at: now, updated_at: now }).returning("id");
      roomIds.set(name, typeof row === "object" ? row.id : row);
    }
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
      const existing = await trx("sensors").where({ sensor_id: s.sensor_id }).first();
      if (existing) await trx("sensors").where({ sensor_id: s.sensor_id }).update(values);
      else await trx("sensors").insert({ sensor_id: s.sensor_id, created_at: now, ...values });
    }
    await trx("persons").insert({
      person_id: "rose",
      display_name: "Grandma Rose",
      notes: "Demo household member",
      cts_alert_config: toJsonText({ enabled_kinds: ["absence", "nighttime_movement", "stillness_anomaly", "bathroom_dwell_anomaly"], min_severity: "warning" }),
      created_at: now,
      updated_at: now,
    });
  });
  ctx.log.info({ rooms: ROOMS.length, sensors: SENSORS.length }, "demo household seeded");
}
