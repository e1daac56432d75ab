/** `POST /ha/sync/rooms` and `POST /ha/sync/sensors?room_name=`: import from the hub (ha-sync.ts). */
import { Router } from "express";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { ServiceUnavailableError } from "../../platform/core/errors";
import { queryParser } from "../../platform/http/query";
import { route } from "../../platform/http/route";
import type { HubClient } from "./hub-client";
import { usableHub, type HubLink } from "./hub";
import { syncRooms, syncSensors } from "./ha-sync";

/** How long a sync waits for a hub that is (re)connecting. */
const CONNECT_WAIT_MS = 5_000;

async function connectedClient(link: HubLink): Promise<HubClient> {
  const hub = usableHub(link);
  if (!hub.ok) throw new ServiceUnavailableError(hub.reason);
  if (!(await hub.client.whenConnected(CONNECT_WAIT_MS))) throw new ServiceUnavailableError("the home hub is not reachable right now; try again shortly");
  return hub.client;
}

const haSyncQuery = queryParser({ room_name: z.string().min(1).max(200).optional() });

export function haSyncRouter(ctx: PlatformContext, link: HubLink): Router {
  const r = Router();
  r.post(
    "/ha/sync/rooms",
    route(async () => syncRooms(ctx, await connectedClient(link))),
  );
  r.post(
    "/ha/sync/sensors",
    route(async (req) => {
      const q = haSyncQuery(req);
      return syncSensors(ctx, await connectedClient(link), q.room_name);
    }),
  );
  return r;
}
