/**
 * `/image/*` besides templates: render, previews, reset, states, fonts, and the display
 * poll `GET /image/active` (its Authorization-header auth is set up in api-v1).
 */
import { Router, type Request } from "express";
import type { CareContext } from "../../core/context";
import { ForbiddenError, ValidationError } from "../../../platform/core/errors";
import { sensorExists } from "../../../household/sensors/sensors.service";
import { route } from "../../../platform/http/route";
import { displayStates } from "./display-states.service";
import { listFonts } from "./fonts";
import { readMultipart } from "./multipart";
import { previewFromForm } from "./preview-form.service";
import { previewImage, renderToDevices, resetDevices } from "./render.service";
import { sendPng } from "./send-png";
import { currentImage, pollActiveImage } from "./serving.service";

/**
 * Who is asking: the display itself (a device key, its own sensor), whose poll is a delivery,
 * or someone peeking (an API key naming a display with `?sensor_id=`), who sees what the
 * display would show and changes nothing, so a caregiver's look never makes the display's
 * own next poll "unchanged". A device asking for another display's image is refused.
 */
async function pollingSensor(ctx: CareContext, req: Request): Promise<{ sensorId: string; peek: boolean }> {
  const raw = req.query.sensor_id;
  const asked = typeof raw === "string" && raw !== "" ? raw : undefined;
  const principal = req.principal;
  if (principal?.kind === "device") {
    if (asked !== undefined && asked !== principal.sensor_id) throw new ForbiddenError(`This device key belongs to '${principal.sensor_id}', not '${asked}'`);
    return { sensorId: principal.sensor_id, peek: false };
  }
  if (asked === undefined) throw new ValidationError("sensor_id: an API key has no display of its own; poll with a device key or pass ?sensor_id=<display>");
  if (!(await sensorExists(ctx, asked))) throw new ValidationError(`sensor_id: unknown sensor '${asked}'`);
  return { sensorId: asked, peek: true };
}

export function imagesRouter(ctx: CareContext): Router {
  const r = Router();
  r.get(
    "/image/active",
    route(async (req, res) => {
      const { sensorId, peek } = await pollingSensor(ctx, req);
      const result = peek ? { kind: "image" as const, ...(await currentImage(ctx, sensorId)) } : await pollActiveImage(ctx, sensorId);
      if (result.kind === "unchanged") return undefined; // 204: the display keeps what it shows
      sendPng(res, result.png, { "X-Image-Hash": result.hash, "X-Image-Source": result.source });
    }),
  );
  r.get(
    "/image/active/:sensor_id",
    route(async (req, res) => {
      const current = await currentImage(ctx, req.params.sensor_id);
      sendPng(res, current.png, { "X-Image-Hash": current.hash, "X-Image-Source": current.source });
    }),
  );
  r.post(
    "/image/render",
    route((req) => renderToDevices(ctx, req.body)),
  );
  r.post(
    "/image/preview",
    route(async (req, res) => sendPng(res, await previewImage(ctx, req.body))),
  );
  r.post(
    "/image/preview-form",
    route(async (req, res) => sendPng(res, await previewFromForm(ctx, await readMultipart(req, res)))),
  );
  r.post(
    "/image/reset",
    route((req) => resetDevices(ctx, req.body ?? {})),
  );
  r.get(
    "/image/states",
    route(() => displayStates(ctx)),
  );
  r.get(
    "/image/fonts",
    route(() => listFonts()),
  );
  return r;
}
