import { Router } from "express";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { queryParser } from "../../platform/http/query";
import { reply, route } from "../../platform/http/route";
import { createSensor, deleteSensor, getSensor, listSensors, updateSensor } from "./sensors.service";
import { SENSOR_TYPES } from "./sensor-types";
import { storeIdQuery } from "../../../nodes/_kit/store-id";

const sensorsQuery = queryParser({
  room_id: storeIdQuery().optional(),
  sensor_type: z.enum(SENSOR_TYPES).optional(),
  source: z.string().min(1).optional(),
});

export function sensorsRouter(ctx: PlatformContext): Router {
  const r = Router();
  r.get(
    "/sensors",
    route((req) => listSensors(ctx, sensorsQuery(req))),
  );
  r.post(
    "/sensors",
    route(async (req) => reply(201, await createSensor(ctx, req.body))),
  );
  r.get(
    "/sensors/:id",
    route((req) => getSensor(ctx, req.params.id)),
  );
  r.put(
    "/sensors/:id",
    route((req) => updateSensor(ctx, req.params.id, req.body)),
  );
  r.delete(
    "/sensors/:id",
    route(async (req) => void (await deleteSensor(ctx, req.params.id))),
  );
  return r;
}
