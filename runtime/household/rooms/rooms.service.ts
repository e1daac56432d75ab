/**
 * Rooms: the physical spaces sensors and filters refer to. A room's name is unique by its
 * key (`core/name-key.ts`), stored in `name_key` with a unique index (migration 012), so
 * 'KÜCHE' and 'Küche' are one room name on SQLite and PostgreSQL alike.
 */
import type { Knex } from "knex";
import { copyRows } from "../../platform/db/table-copy";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { ConflictError, NotFoundError } from "../../platform/core/errors";
import { NAME_KEY_TOO_LONG, nameKey, nameKeyFits } from "../../platform/core/name-key";
import { parseInput } from "../../platform/core/validation";
import { isUniqueViolation } from "../../platform/db/name-match";
import { preparedRead } from "../../platform/db/prepared-read";

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

// Every authenticated GET /api/v1/rooms runs it: compiled once (platform/db/prepared-read.ts).
const allRooms = preparedRead<Room>((db) =>
  db<Room>("rooms")
    .select(...COLUMNS)
    .orderBy("id"),
);

export async function listRooms(ctx: PlatformContext): Promise<Room[]> {
  return allRooms(ctx.db);
}

export async function getRoom(ctx: PlatformContext, id: number): Promise<Room> {
  const room = await ctx
    .db<Room>("rooms")
    .where({ id })
    .first(...COLUMNS);
  if (!room) throw new NotFoundError(`Room ${id} not found`);
  return room;
}

/** The room with this name in any case or Unicode spelling ('küche' finds 'KÜCHE'). */
export async function findRoomByName(ctx: PlatformContext, roomName: string): Promise<Room | undefined> {
  return ctx
    .db<Room>("rooms")
    .where("name_key", nameKey(roomName))
    .first(...COLUMNS);
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
  const [row] = await ctx
    .db("rooms")
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
  await ctx
    .db("rooms")
    .where({ id })
    .update({ ...rest, ...(newName !== undefined ? roomNameColumns(newName) : {}), updated_at: isoNow(ctx.clock) })
    .catch((err: unknown) => nameTakenMeanwhile(ctx, newName ?? "", err, id));
  return getRoom(ctx, id);
}

/** Removes the room's row; `room-removal.ts` checks first that no sensor is left in it. */
export async function deleteRoomRow(ctx: PlatformContext, id: number): Promise<void> {
  await ctx.db("rooms").where({ id }).delete();
}

/** Whether a room with this id exists. */
export async function roomExists(ctx: PlatformContext, id: number): Promise<boolean> {
  return !!(await ctx.db("rooms").where({ id }).first("id"));
}

/** The names of these rooms by id (rooms that do not exist are left out). */
export async function roomNamesById(ctx: PlatformContext, ids: readonly number[]): Promise<Map<number, string>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const rows: Array<{ id: number | string; name: string }> = await ctx.db("rooms").whereIn("id", wanted).select("id", "name");
  return new Map(rows.map((r) => [Number(r.id), r.name]));
}

/** How many rooms there are (the demo seeds only an empty store). */
export async function countRooms(ctx: Pick<PlatformContext, "db">): Promise<number> {
  const rows = await ctx.db("rooms").count<{ n: number | string }[]>({ n: "*" });
  return Number(rows[0].n);
}

/** Inserts a room as given, without the API's checks (the demo seed, inside its transaction); returns its id. */
export async function insertRoomRow(db: Knex, roomName: string, now: string): Promise<number> {
  const [row] = await db("rooms")
    .insert({ ...roomNameColumns(roomName), created_at: now, updated_at: now })
    .returning("id");
  return typeof row === "object" ? row.id : row;
}

/** The household's rooms into another store (a rehearsal's scratch store). */
export const copyRoomsInto = (from: Knex, to: Knex): Promise<number> => copyRows(from, to, "rooms");
