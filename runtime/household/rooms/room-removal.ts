/**
 * Deleting a room: a room that still has sensors is not deleted, the caller must move or
 * delete them first. Apart from rooms.service.ts because the sensors (whose service reads
 * rooms) are asked.
 */
import type { PlatformContext } from "../../platform/context";
import { ConflictError } from "../../platform/core/errors";
import { sensorIdsInRoom } from "../sensors/sensors.service";
import { deleteRoomRow, getRoom } from "./rooms.service";

export async function deleteRoom(ctx: PlatformContext, id: number): Promise<void> {
  const room = await getRoom(ctx, id);
  const sensors = await sensorIdsInRoom(ctx, id);
  if (sensors.length > 0) {
    throw new ConflictError(`Room '${room.name}' still has ${sensors.length} sensor(s) (${sensors.join(", ")}); move or delete them first`);
  }
  await deleteRoomRow(ctx, id);
}
