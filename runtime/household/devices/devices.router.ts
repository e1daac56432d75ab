/**
 * `POST /device/camera` and `POST /device/terminal` (spec "Device endpoints"). The key has
 * been checked by `/api/v1`'s gate (header, `api_key` query or `device_key` in the body); the
 * sensor comes from the key. The request is then served by the Devices tab's
 * `care-device-in` node for that kind (device-endpoints.ts).
 *
 * A device key of another device type is refused (403). An admin key may post for any
 * existing sensor named by `?sensor_id=` (to try a flow by hand).
 */
import { Router, type Request } from "express";
import type { DeviceIdentity, DeviceKind } from "../../../nodes/_kit/device-types";
import type { PlatformContext } from "../../platform/context";
import { ForbiddenError, NotFoundError, ValidationError } from "../../platform/core/errors";
import { reply, route } from "../../platform/http/route";
import { sensorExists, sensorRoomName } from "../sensors/sensors.service";
import type { DeviceEndpoints } from "./device-endpoints";

const DEVICE_TYPE: Record<DeviceKind, string> = { camera: "camera_device", terminal: "terminal" };

async function identify(ctx: PlatformContext, req: Request, kind: DeviceKind): Promise<DeviceIdentity> {
  const p = req.principal;
  if (p?.kind === "device") {
    if (p.device_type !== DEVICE_TYPE[kind]) throw new ForbiddenError(`a ${p.device_type} key cannot post ${kind} input`);
    return { kind, sensor_id: p.sensor_id, name: p.name, room_name: await sensorRoomName(ctx, p.sensor_id) };
  }
  const sensorId = req.query.sensor_id;
  if (typeof sensorId !== "string" || sensorId === "") throw new ValidationError("sensor_id: required in the query when the key is not a device key");
  if (!(await sensorExists(ctx, sensorId))) throw new NotFoundError(`Sensor '${sensorId}' not found`);
  return { kind, sensor_id: sensorId, name: p?.name ?? "api", room_name: await sensorRoomName(ctx, sensorId) };
}

export function devicesRouter(ctx: PlatformContext, endpoints: DeviceEndpoints): Router {
  const r = Router();
  for (const kind of ["camera", "terminal"] as const) {
    r.post(
      `/device/${kind}`,
      route(async (req) => {
        const device = await identify(ctx, req, kind);
        const answer = await endpoints.dispatch(kind, { device, body: req.body as unknown });
        return reply(answer.status, answer.body);
      }),
    );
  }
  return r;
}
