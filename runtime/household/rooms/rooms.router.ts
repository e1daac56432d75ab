import { Router } from "express";
import type { PlatformContext } from "../../platform/context";
import { intParam } from "../../platform/http/params";
import { reply, route } from "../../platform/http/route";
import { deleteRoom } from "./room-removal";
import { createRoom, getRoom, listRooms, updateRoom } from "./rooms.service";

export function roomsRouter(ctx: PlatformContext): Router {
  const r = Router();
  r.get(
    "/rooms",
    route(() => listRooms(ctx)),
  );
  r.post(
    "/rooms",
    route(async (req) => reply(201, await createRoom(ctx, req.body))),
  );
  r.get(
    "/rooms/:id",
    route((req) => getRoom(ctx, intParam(req, "id", "Room"))),
  );
  r.put(
    "/rooms/:id",
    route((req) => updateRoom(ctx, intParam(req, "id", "Room"), req.body)),
  );
  r.delete(
    "/rooms/:id",
    route(async (req) => void (await deleteRoom(ctx, intParam(req, "id", "Room")))),
  );
  return r;
}
