/**
 * Serving a display its image on each poll, by the spec's table: the active image while
 * it has not expired, else the default card; the same bytes (SHA-256) as last delivered
 * within `image.refresh_window_minutes` answer "no change" and leave the record alone;
 * anything else is delivered and recorded. A first poll has no record, so it always gets
 * the image; a window of 0 always delivers.
 */
import type { CareContext } from "../../core/context";
import { isoNow } from "../../../platform/core/clock";
import { NotFoundError } from "../../../platform/core/errors";
import { sensorExists } from "../../../household/sensors/sensors.service";
import { defaultCardHash } from "./default-image";
import { getDeviceState, recordDelivery, type DeviceStateRow } from "./device-states.store";
import { imageExists, readImage } from "./image-store";
import { getDefaultTemplate } from "./templates.service";

export type ImageSource = "active" | "default";

export type PollResult = { kind: "image"; png: Buffer; hash: string; source: ImageSource } | { kind: "unchanged"; hash: string; source: ImageSource };

interface Current {
  hash: string;
  source: ImageSource;
}

export const isExpired = (state: Pick<DeviceStateRow, "expires_at">, nowMs: number): boolean =>
  state.expires_at !== null && Date.parse(state.expires_at) <= nowMs;

async function currentFor(ctx: CareContext, state: DeviceStateRow | undefined): Promise<Current | null> {
  if (state?.image_hash && !isExpired(state, ctx.clock.now()) && (await imageExists(ctx, state.image_hash))) {
    return { hash: state.image_hash, source: "active" };
  }
  const template = await getDefaultTemplate(ctx);
  const hash = template ? await defaultCardHash(ctx, template) : null;
  return hash ? { hash, source: "default" } : null;
}

const nothingToShow = (sensorId: string) => new NotFoundError(`No active image for '${sensorId}' and no default template`);

function withinWindow(ctx: CareContext, state: DeviceStateRow | undefined, hash: string): boolean {
  const windowMinutes = ctx.settings.image.refresh_window_minutes;
  if (!state || state.last_served_hash !== hash || !state.last_served_at || windowMinutes <= 0) return false;
  return ctx.clock.now() - Date.parse(state.last_served_at) < windowMinutes * 60_000;
}

/** One poll by the display `sensorId`. Throws NotFoundError when there is nothing at all. */
export async function pollActiveImage(ctx: CareContext, sensorId: string): Promise<PollResult> {
  const state = await getDeviceState(ctx, sensorId);
  const current = await currentFor(ctx, state);
  if (!current) throw nothingToShow(sensorId);
  if (withinWindow(ctx, state, current.hash)) return { kind: "unchanged", ...current };
  const png = await readImage(ctx, current.hash);
  if (!png) throw nothingToShow(sensorId);
  await recordDelivery(ctx, sensorId, current.hash, isoNow(ctx.clock));
  return { kind: "image", png, ...current };
}

/** What the display would show now, for an admin: no suppression, no delivery record. */
export async function currentImage(ctx: CareContext, sensorId: string): Promise<{ png: Buffer; hash: string; source: ImageSource }> {
  const state = await getDeviceState(ctx, sensorId);
  if (!state && !(await sensorExists(ctx, sensorId))) throw new NotFoundError(`Sensor ${sensorId} not found`);
  const current = await currentFor(ctx, state);
  const png = current ? await readImage(ctx, current.hash) : null;
  if (!current || !png) throw nothingToShow(sensorId);
  return { png, ...current };
}
