import { Router } from "express";
import type { AppContext } from "../context";
import { intParam } from "../http/params";
import { reply, route } from "../http/route";
import { createRoom, deleteRoom, getRoom, listRooms, updateRoom } from "./rooms.service";

export function roomsRouter(ctx: AppContext): Router {
  const r = Router();
  r.get("/rooms", route(() => listRooms(ctx)));
  r.post("/rooms", route(async (req) => reply(201, await createRoom(ctx, req.body))));
  r.get("/rooms/:id", route((req) => getRoom(ctx, intParam(req, "id", "Room"))));
  r.put("/rooms/:id", route((req) => updateRoom(ctx, intParam(req, "id", "Room"), req.body)));
  r.delete("/rooms/:id", route(async (req) => void (await deleteRoom(ctx, intParam(req, "id", "Room")))));
  return r;
}
