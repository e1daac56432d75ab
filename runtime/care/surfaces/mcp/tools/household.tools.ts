/** The household's state: rooms, sensors, occupancy, camera images, light, weather, the local time. */
import { z } from "zod";
import { listRooms, findRoomByName } from "../../../../household/rooms/rooms.service";
import { listSensors } from "../../../../household/sensors/sensors.service";
import { SENSOR_TYPES } from "../../../../household/sensors/sensor-types";
import { newestFrames, signedUrl } from "../../../../household/media/media.service";
import { hubServices } from "../../../../household/hub/hub-services";
import { NOT_CONFIGURED } from "../../../../household/hub/hub";
import { localParts, WEEKDAY_NAMES } from "../../../../household/tracking/local-time";
import { defineTool, notConfigured, ToolError, type ToolDef } from "../tool";

const enc = encodeURIComponent;
const pad = (n: number) => String(n).padStart(2, "0");

const room = z.object({ id: z.number().int(), name: z.string(), ha_area_id: z.string().nullable(), floor: z.string().nullable() });
const sensor = z.object({
  id: z.string().describe("the sensor's id (sensor_id)"),
  name: z.string(),
  room: z.string().nullable(),
  sensor_type: z.string(),
  source: z.string(),
  enabled: z.boolean(),
});
const occupancy = z.object({
  room: z.string().nullable(),
  occupied: z.boolean(),
  since: z.string().nullable(),
  minutes: z.number().nullable(),
  over_time_limit: z.boolean(),
  sensors: z.array(z.object({ sensor_id: z.string(), occupied: z.boolean(), since: z.string() })),
});
const image = z.object({
  sensor_id: z.string(),
  room_name: z.string().nullable(),
  captured_at: z.string(),
  labels: z.array(z.string()),
  url: z.string().nullable().describe("a signed URL that expires (media.signed_url_ttl_seconds); null when the frame has no stored object"),
});

export const HOUSEHOLD_TOOLS: readonly ToolDef[] = [
  defineTool({
    name: "get_rooms",
    title: "Rooms",
    description: "List the rooms of the household.",
    input: z.object({}),
    output: z.array(room),
    twin: () => "GET /api/v1/rooms",
    run: async ({ ctx }) => (await listRooms(ctx)).map(({ id, name, ha_area_id, floor }) => ({ id, name, ha_area_id, floor })),
  }),
  defineTool({
    name: "get_sensors",
    title: "Sensors",
    description: "List the sensors (cameras, presence, buttons, light, e-ink), optionally of one room or one type.",
    input: z.object({
      room_name: z.string().min(1).max(100).optional().describe("only the sensors of this room (any case)"),
      sensor_type: z.enum(SENSOR_TYPES).optional(),
    }),
    output: z.array(sensor),
    twin: () => "GET /api/v1/sensors",
    run: async ({ ctx }, a) => {
      let roomId: number | undefined;
      if (a.room_name !== undefined) {
        const r = await findRoomByName(ctx, a.room_name);
        if (!r) return [];
        roomId = r.id;
      }
      const sensors = await listSensors(ctx, {
        ...(roomId !== undefined ? { room_id: roomId } : {}),
        ...(a.sensor_type ? { sensor_type: a.sensor_type } : {}),
      });
      return sensors.map((s) => ({ id: s.sensor_id, name: s.name, room: s.room_name, sensor_type: s.sensor_type, source: s.source, enabled: s.enabled }));
    },
  }),
  defineTool({
    name: "get_room_occupancy",
    title: "Room occupancy",
    description: "Which rooms are occupied now according to the presence sensors, since when and for how many minutes.",
    input: z.object({ room_name: z.string().min(1).max(200).optional().describe("only this room (any case)") }),
    output: z.array(occupancy),
    twin: () => "GET /api/v1/occupancy",
    run: ({ occupancy: board }, a) => Object.values(board.summary(a.room_name)),
  }),
  defineTool({
    name: "get_recent_images",
    title: "Recent camera images",
    description: "The newest frames of one camera, newest first, as signed URLs that expire.",
    input: z.object({ sensor_id: z.string().min(1).max(200), limit: z.number().int().min(1).max(20).default(5) }),
    output: z.array(image),
    twin: (a) => `GET /api/v1/sensors/${enc(a.sensor_id)}`,
    run: async ({ ctx }, a) => {
      const rows = await newestFrames(ctx, a.sensor_id, { limit: a.limit });
      return Promise.all(
        rows.map(async (r) => ({
          sensor_id: r.sensor_id,
          room_name: r.room_name,
          captured_at: r.captured_at,
          labels: r.labels,
          url: r.object_name ? await signedUrl(ctx, r.object_name) : null,
        })),
      );
    },
  }),
  defineTool({
    name: "get_light_level",
    title: "Light level",
    description: "The illuminance a light sensor of the home hub reports, in lux.",
    input: z.object({ entity_id: z.string().regex(/^[a-z_]+\.[a-z0-9_]+$/, "an entity id like sensor.kitchen_illuminance") }),
    output: z.object({ entity_id: z.string(), illuminance_lux: z.number().nullable(), last_changed: z.string().nullable() }),
    twin: () => "GET /api/v1/sensors",
    run: ({ ctx }, a) => {
      if (!ctx.hub?.client) throw notConfigured(ctx.hub?.reason || NOT_CONFIGURED);
      const state = ctx.hub.state(a.entity_id);
      if (!state) throw new ToolError(`the hub has not reported ${a.entity_id}`, 404);
      const lux = Number(state.state);
      return { entity_id: a.entity_id, illuminance_lux: state.state !== "" && Number.isFinite(lux) ? lux : null, last_changed: state.last_changed ?? null };
    },
  }),
  defineTool({
    name: "get_weather",
    title: "Weather",
    description: "The current weather and up to three forecast entries, from the home hub's weather entity.",
    input: z.object({}),
    output: z.object({
      state: z.string(),
      temperature: z.number().nullable(),
      temperature_unit: z.string().nullable(),
      humidity: z.number().nullable(),
      wind_speed: z.number().nullable(),
      wind_speed_unit: z.string().nullable(),
      forecast: z.array(z.record(z.string(), z.unknown())).max(3),
    }),
    twin: () => "GET /api/v1/sensors",
    run: ({ ctx }) => {
      if (!ctx.hub?.client) throw notConfigured(ctx.hub?.reason || NOT_CONFIGURED);
      const answer = hubServices(ctx, () => ctx.hub).weather();
      if (!answer.ok) throw notConfigured(answer.reason);
      return answer.value;
    },
  }),
  defineTool({
    name: "get_local_datetime",
    title: "Local date and time",
    description: "The household's local date and time, in its time zone (app.timezone).",
    input: z.object({}),
    output: z.object({ datetime: z.string(), date: z.string(), time: z.string(), day_of_week: z.string(), timezone: z.string() }),
    twin: () => "GET /api/v1/rooms",
    run: ({ ctx }) => {
      const tz = ctx.settings.app.timezone;
      const p = localParts(ctx.clock.now(), tz);
      const date = `${p.year}-${pad(p.month)}-${pad(p.day)}`;
      const time = `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
      return { datetime: `${date}T${time}`, date, time, day_of_week: WEEKDAY_NAMES[p.weekday], timezone: tz };
    },
  }),
];
