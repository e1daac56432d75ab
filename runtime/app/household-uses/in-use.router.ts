/**
 * A room or sensor that a rule still uses is not deleted (issue 43 §1): `DELETE /rooms/{id}` and
 * `DELETE /sensors/{id}` answer 409 naming the rule, before the rooms and sensors routers do the
 * delete. Here in the app layer because the rules (care) are asked about the household's rooms
 * and sensors, and the household layer does not import care. A room is used by a rule that
 * names it or one of its sensors: deleting the room would first need its sensors gone.
 */
import { Router, type NextFunction, type Request, type Response } from "express";
import type { AppContext } from "../context";
import { ConflictError } from "../../platform/core/errors";
import { intParam } from "../../platform/http/params";
import { getRoom } from "../../household/rooms/rooms.service";
import { getSensor, sensorIdsInRoom } from "../../household/sensors/sensors.service";
import { rulesUsingHousehold, sayRules } from "../../care/core/rules/household-uses";

type Check = (req: Request) => Promise<void>;

const guard =
  (check: Check) =>
  (req: Request, _res: Response, next: NextFunction): void => {
    check(req).then(() => next(), next);
  };

export function inUseRouter(ctx: AppContext): Router {
  const r = Router();
  r.delete(
    "/rooms/:id",
    guard(async (req) => {
      const room = await getRoom(ctx, intParam(req, "id", "Room"));
      const uses = await rulesUsingHousehold(ctx, { sensors: await sensorIdsInRoom(ctx, room.id), room: room.name });
      if (uses.length === 0) return;
      const through = [...new Set(uses.flatMap((u) => u.names))].map((n) => (n.startsWith("sensor") ? `its ${n}` : "its name"));
      throw new ConflictError(`Room '${room.name}' is used by ${sayRules(uses)} (${through.join(", ")}); change the rule first, then delete the room`);
    }),
  );
  r.delete(
    "/sensors/:id",
    guard(async (req) => {
      const sensor = await getSensor(ctx, req.params.id);
      const uses = await rulesUsingHousehold(ctx, { sensors: [sensor.sensor_id] });
      if (uses.length === 0) return;
      throw new ConflictError(`Sensor '${sensor.sensor_id}' is used by ${sayRules(uses)}; change the rule first, then delete the sensor`);
    }),
  );
  return r;
}
