/** Sensors: cameras, presence and light sensors, buttons and e-ink displays. */
import type { Knex } from "knex";
import { copyRows } from "../../platform/db/table-copy";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../platform/core/errors";
import { parseInput, positiveIntOrNull } from "../../platform/core/validation";
import { fromJsonText, toBool, toJsonText } from "../../platform/db/json-column";
import { roomExists, roomNamesById } from "../rooms/rooms.service";
import { activeManagedKeyOfSensor } from "../../platform/auth/managed-keys.store";
import { RAW_DIRECTIONS, SEMANTIC_DIRECTIONS, SENSOR_TYPES } from "./sensor-types";
import { storeId } from "../../../nodes/_kit/store-id";

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
  room_id: storeId().nullable(),
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

type StoredSensorRow = Omit<SensorRow, "room_name">;

const toSensor = (row: SensorRow): Sensor => ({
  ...row,
  enabled: toBool(row.enabled),
  config_json: fromJsonText<Record<string, unknown>>(row.config_json, {}),
});

/** The rows with their room's name, asked of the rooms (one query for all of them). */
async function withRoomNames(ctx: PlatformContext, rows: StoredSensorRow[]): Promise<Sensor[]> {
  const names = await roomNamesById(
    ctx,
    rows.flatMap((r) => (r.room_id === null ? [] : [r.room_id])),
  );
  return rows.map((r) => toSensor({ ...r, room_name: r.room_id === null ? null : (names.get(Number(r.room_id)) ?? null) }));
}

const baseQuery = (ctx: PlatformContext) => ctx.db("sensors").select("sensors.*");

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
  return withRoomNames(ctx, await q);
}

/** `ref` is the numeric id or the sensor_id string. */
export async function getSensor(ctx: PlatformContext, ref: string | number): Promise<Sensor> {
  const numeric = typeof ref === "number" ? ref : positiveIntOrNull(ref);
  const row: StoredSensorRow | undefined = await baseQuery(ctx)
    .where((w) => {
      if (numeric !== null) w.where("sensors.id", numeric);
      else w.where("sensors.sensor_id", String(ref));
    })
    .first();
  if (!row) throw new NotFoundError(`Sensor ${ref} not found`);
  return (await withRoomNames(ctx, [row]))[0];
}

export async function findSensor(ctx: PlatformContext, sensorId: string): Promise<Sensor | undefined> {
  const row: StoredSensorRow | undefined = await baseQuery(ctx).where("sensors.sensor_id", sensorId).first();
  return row ? (await withRoomNames(ctx, [row]))[0] : undefined;
}

async function assertRoomExists(ctx: PlatformContext, roomId: number | null | undefined): Promise<void> {
  if (roomId === null || roomId === undefined) return;
  if (!(await roomExists(ctx, roomId))) throw new ValidationError(`room_id: room ${roomId} does not exist`);
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
  await ctx
    .db("sensors")
    .where({ id: sensor.id })
    .update({ ...rest, ...(config_json !== undefined ? { config_json: toJsonText(config_json) } : {}), updated_at: isoNow(ctx.clock) });
  return getSensor(ctx, sensor.id);
}

export async function deleteSensor(ctx: PlatformContext, ref: string): Promise<void> {
  const sensor = await getSensor(ctx, ref);
  // A device still posting with a key made for this sensor would post for a sensor that is gone.
  const key = await activeManagedKeyOfSensor(ctx.db, sensor.sensor_id);
  if (key)
    throw new ConflictError(
      `Sensor '${sensor.sensor_id}' has the device key '${key.name}' (id ${key.id}): revoke it first (DELETE /api/v1/admin/keys/${key.id})`,
    );
  await ctx.db("sensors").where({ id: sensor.id }).delete();
}

/** Whether a sensor with this sensor_id exists. */
export async function sensorExists(ctx: PlatformContext, sensorId: string): Promise<boolean> {
  return !!(await ctx.db("sensors").where({ sensor_id: sensorId }).first("id"));
}

/** Every sensor's sensor_id (for "did you mean" hints and bundle checks). */
export async function sensorIds(ctx: PlatformContext): Promise<string[]> {
  const rows: Array<{ sensor_id: string }> = await ctx.db("sensors").select("sensor_id");
  return rows.map((s) => s.sensor_id);
}

/** Those of these sensor_ids that name a sensor. */
export async function existingSensorIds(ctx: PlatformContext, ids: readonly string[]): Promise<string[]> {
  const rows: Array<{ sensor_id: string }> = await ctx
    .db("sensors")
    .whereIn("sensor_id", [...ids])
    .select("sensor_id");
  return rows.map((s) => s.sensor_id);
}

/** The sensor_ids of the sensors in a room. */
export async function sensorIdsInRoom(ctx: PlatformContext, roomId: number): Promise<string[]> {
  const rows: Array<{ sensor_id: string }> = await ctx.db("sensors").where({ room_id: roomId }).select("sensor_id");
  return rows.map((s) => s.sensor_id);
}

/** The name of the sensor's room; null for no sensor id, an unknown sensor or one without a room. */
export async function sensorRoomName(ctx: PlatformContext, sensorId: string | null): Promise<string | null> {
  if (!sensorId) return null;
  const row: { room_id: number | null } | undefined = await ctx.db("sensors").where({ sensor_id: sensorId }).first("room_id");
  if (row?.room_id === null || row?.room_id === undefined) return null;
  return (await roomNamesById(ctx, [row.room_id])).get(Number(row.room_id)) ?? null;
}

/** A sensor's type, or undefined when there is no such sensor. */
export async function sensorTypeOf(ctx: PlatformContext, sensorId: string): Promise<string | undefined> {
  const row: { sensor_type: string } | undefined = await ctx.db("sensors").where({ sensor_id: sensorId }).first("sensor_type");
  return row?.sensor_type;
}

/** A sensor row as given, without the API's checks and events (device keys at startup, the demo seed). */
export interface SensorRowValues {
  name: string;
  sensor_type: string;
  room_id: number | null;
  source: string;
  enabled: boolean;
  config_json: string;
  updated_at: string;
}

export async function insertSensorRow(db: Knex, sensorId: string, values: SensorRowValues, createdAt: string): Promise<void> {
  await db("sensors").insert({ sensor_id: sensorId, created_at: createdAt, ...values });
}

/** Sets these columns of the sensor (no event: startup and seeding write this way). */
export async function updateSensorRow(db: Knex, sensorId: string, values: Partial<SensorRowValues>): Promise<void> {
  await db("sensors").where({ sensor_id: sensorId }).update(values);
}

/** Whether the sensor exists, read through the caller's transaction. */
export async function sensorRowExists(db: Knex, sensorId: string): Promise<boolean> {
  return !!(await db("sensors").where({ sensor_id: sensorId }).first());
}

/** The household's sensors into another store (a rehearsal's scratch store). */
export const copySensorsInto = (from: Knex, to: Knex): Promise<number> => copyRows(from, to, "sensors");
