/** `GET /occupancy` (spec: "Occupancy and home hub sync"): rooms occupied now, since when, for how long. */
import { Router } from "express";
import { z } from "zod";
import { queryParser } from "../../platform/http/query";
import { route } from "../../platform/http/route";
import type { OccupancyBoard } from "./occupancy.board";

const occupancyQuery = queryParser({ room_name: z.string().min(1).max(200).optional() });

export function occupancyRouter(board: OccupancyBoard): Router {
  const r = Router();
  r.get(
    "/occupancy",
    route((req) => {
      const q = occupancyQuery(req);
      return { occupancy: board.summary(q.room_name) };
    }),
  );
  return r;
}
