/**
 * Rooms: the physical spaces sensors and filters refer to. A room's name is unique by its
 * key (`core/name-key.ts`), stored in `name_key` with a unique index (migration 012), so
 * 'KÜCHE' and 'Küche' are one room name on SQLite and PostgreSQL alike.
 */
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { ConflictError, NotFoundError } from "../../platform/core/errors";
import { NAME_KEY_TOO_LONG, nameKey, nameKeyFits } from "../../platform/core/name-key";
import { parseInput } from "../../platform/core/validation";
import { isUniqueViolation } from "../../platform/db/name-match";

export interface Room {
  id: number;
  name: string;
  ha_area_id: string | null;
  floor: string | null;
  created_at: string;
  updated_at: string;
}

const name = z.string().trim().min(1, "must not be empty").max(100).refine(nameKeyFits, NAME_KEY_TOO_LONG);

/** What a room shows; `name_key` stays in the store. */
const COLUMNS = ["id", "name", "ha_area_id", "floor", "created_at", "updated_at"] as const;

/** The columns a room's name is stored in: the name as typed and its key. */
export const roomNameColumns = (roomName: string): { name: string; name_key: string } => ({ name: roomName, name_key: nameKey(roomName) });

export const roomCreateSchema = z
  .object({ name, ha_area_id: z.string().max(200).nullable().optional(), floor: z.string().max(100).nullable().optional() })
  .strict();
export const roomUpdateSchema = roomCreateSchema.partial().strict();

export async function listRooms(ctx: PlatformContext): Promise<Room[]> {
  return ctx.db<Room>("rooms").select(...COLUMNS).orderBy("id");
}

export async function getRoom(ctx: PlatformContext, id: number): Promise<Room> {
  const room = await ctx.db<Room>("rooms").where({ id }).first(...COLUMNS);
  if (!room) throw new NotFoundError(`Room ${id} not found`);
  return room;
}

/** The room with this name in any case or Unicode spelling ('küche' finds 'KÜCHE'). */
export async function findRoomByName(ctx: PlatformContext, roomName: string): Promise<Room | undefined> {
  return ctx.db<Room>("rooms").where("name_key", nameKey(roomName)).first(...COLUMNS);
}

async function assertNameFree(ctx: PlatformContext, roomName: string, exceptId?: number): Promise<void> {
  const other = await findRoomByName(ctx, roomName);
  if (other && other.id !== exceptId) throw new ConflictError(`A room named '${other.name}' already exists (id ${other.id})`);
}

/** The unique index answers a writer that checked at the same moment as another: 409, as the check would. */
async function nameTakenMeanwhile(ctx: PlatformContext, roomName: string, err: unknown, exceptId?: number): Promise<never> {
  if (isUniqueViolation(err)) await assertNameFree(ctx, roomName, exceptId);
  throw err;
}

export async function createRoom(ctx: PlatformContext, input: unknown): Promise<Room> {
  const body = parseInput(roomCreateSchema, input);
  await assertNameFree(ctx, body.name);
  const now = isoNow(ctx.clock);
  const [row] = await ctx.db("rooms")
    .insert({ ...roomNameColumns(body.name), ha_area_id: body.ha_area_id ?? null, floor: body.floor ?? null, created_at: now, updated_at: now })
    .returning("id")
    .catch((err: unknown) => nameTakenMeanwhile(ctx, body.name, err));
  return getRoom(ctx, typeof row === "object" ? row.id : row);
}

export async function updateRoom(ctx: PlatformContext, id: number, input: unknown): Promise<Room> {
  const body = parseInput(roomUpdateSchema, input);
  await getRoom(ctx, id);
  if (body.name !== undefined) await assertNameFree(ctx, body.name, id);
  const { name: newName, ...rest } = body;
  await ctx.db("rooms")
    .where({ id })
    .update({ ...rest, ...(newName !== undefined ? roomNameColumns(newName) : {}), updated_at: isoNow(ctx.clock) })
    .catch((err: unknown) => nameTakenMeanwhile(ctx, newName ?? "", err, id));
  return getRoom(ctx, id);
}

/** A room that still has sensors is not deleted: the caller must move or delete them first. */
export async function deleteRoom(ctx: PlatformContext, id: number): Promise<void> {
  const room = await getRoom(ctx, id);
  const sensors = await ctx.db("sensors").where({ room_id: id }).select("sensor_id");
  if (sensors.length > 0) {
    const names = sensors.map((s: { sensor_id: string }) => s.sensor_id).join(", ");
    throw new ConflictError(`Room '${room.name}' still has ${sensors.length} sensor(s) (${names}); move or delete them first`);
  }
  await ctx.db("rooms").where({ id }).delete();
}
