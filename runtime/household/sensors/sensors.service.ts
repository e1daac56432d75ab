/** Sensors: cameras, presence and light sensors, buttons and e-ink displays. */
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../platform/core/errors";
import { parseInput, positiveIntOrNull } from "../../platform/core/validation";
import { fromJsonText, toBool, toJsonText } from "../../platform/db/json-column";
import { RAW_DIRECTIONS, SEMANTIC_DIRECTIONS, SENSOR_TYPES } from "./sensor-types";

export interface Sensor {
  id: number;
  sensor_id: string;
  name: string;
  sensor_type: string;
  room_id: number | null;
  room_name: string | null;
  source: string;
  enabled: boolean;
  config_json: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

interface SensorRow extends Omit<Sensor, "enabled" | "config_json"> {
  enabled: number | boolean;
  config_json: string;
}

const movementMap = z.partialRecord(z.enum(RAW_DIRECTIONS), z.enum(SEMANTIC_DIRECTIONS));
const configJson = z.looseObject({ movement_map: movementMap.optional() });

const fields = {
  name: z.string().trim().min(1, "must not be empty").max(200),
  sensor_type: z.enum(SENSOR_TYPES),
  room_id: z.number().int().positive().nullable(),
  source: z.string().trim().min(1).max(50),
  enabled: z.boolean(),
  config_json: configJson,
};

export const sensorCreateSchema = z
  .object({
    sensor_id: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(200)
      .regex(/^[A-Za-z0-9_.:-]+$/, "only letters, digits and _ . : - are allowed"),
    ...fields,
    name: fields.name.optional(),
    room_id: fields.room_id.optional(),
    source: fields.source.optional(),
    enabled: fields.enabled.optional(),
    config_json: fields.config_json.optional(),
  })
  .strict();
export const sensorUpdateSchema = z.object(fields).partial().strict();

const toSensor = (row: SensorRow): Sensor => ({
  ...row,
  enabled: toBool(row.enabled),
  config_json: fromJsonText<Record<string, unknown>>(row.config_json, {}),
});

const baseQuery = (ctx: PlatformContext) =>
  ctx.db("sensors").leftJoin("rooms", "rooms.id", "sensors.room_id").select("sensors.*", "rooms.name as room_name");

export interface SensorFilters {
  room_id?: number;
  sensor_type?: string;
  source?: string;
}

export async function listSensors(ctx: PlatformContext, filters: SensorFilters = {}): Promise<Sensor[]> {
  const q = baseQuery(ctx).orderBy("sensors.id");
  if (filters.room_id !== undefined) q.where("sensors.room_id", filters.room_id);
  if (filters.sensor_type !== undefined) q.where("sensors.sensor_type", filters.sensor_type);
  if (filters.source !== undefined) q.where("sensors.source", filters.source);
  return (await q).map(toSensor);
}

/** `ref` is the numeric id or the sensor_id string. */
export async function getSensor(ctx: PlatformContext, ref: string | number): Promise<Sensor> {
  const numeric = typeof ref === "number" ? ref : positiveIntOrNull(ref);
  const row: SensorRow | undefined = await baseQuery(ctx)
    .where((w) => {
      if (numeric !== null) w.where("sensors.id", numeric);
      else w.where("sensors.sensor_id", String(ref));
    })
    .first();
  if (!row) throw new NotFoundError(`Sensor ${ref} not found`);
  return toSensor(row);
}

export async function findSensor(ctx: PlatformContext, sensorId: string): Promise<Sensor | undefined> {
  const row: SensorRow | undefined = await baseQuery(ctx).where("sensors.sensor_id", sensorId).first();
  return row ? toSensor(row) : undefined;
}

async function assertRoomExists(ctx: PlatformContext, roomId: number | null | undefined): Promise<void> {
  if (roomId === null || roomId === undefined) return;
  const room = await ctx.db("rooms").where({ id: roomId }).first();
  if (!room) throw new ValidationError(`room_id: room ${roomId} does not exist`);
}

export async function createSensor(ctx: PlatformContext, input: unknown, defaultSource = "manual"): Promise<Sensor> {
  const body = parseInput(sensorCreateSchema, input);
  await assertRoomExists(ctx, body.room_id);
  if (await findSensor(ctx, body.sensor_id)) throw new ConflictError(`A sensor with sensor_id '${body.sensor_id}' already exists`);
  const now = isoNow(ctx.clock);
  await ctx.db("sensors").insert({
    sensor_id: body.sensor_id,
    name: body.name ?? body.sensor_id,
    sensor_type: body.sensor_type,
    room_id: body.room_id ?? null,
    source: body.source ?? defaultSource,
    enabled: body.enabled ?? true,
    config_json: toJsonText(body.config_json ?? {}),
    created_at: now,
    updated_at: now,
  });
  return getSensor(ctx, body.sensor_id);
}

export async function updateSensor(ctx: PlatformContext, ref: string, input: unknown): Promise<Sensor> {
  const body = parseInput(sensorUpdateSchema, input);
  const sensor = await getSensor(ctx, ref);
  await assertRoomExists(ctx, body.room_id);
  const { config_json, ...rest } = body;
  await ctx.db("sensors")
    .where({ id: sensor.id })
    .update({ ...rest, ...(config_json !== undefined ? { config_json: toJsonText(config_json) } : {}), updated_at: isoNow(ctx.clock) });
  return getSensor(ctx, sensor.id);
}

export async function deleteSensor(ctx: PlatformContext, ref: string): Promise<void> {
  const sensor = await getSensor(ctx, ref);
  await ctx.db("sensors").where({ id: sensor.id }).delete();
}
