/**
 * Each display's row: its active image (hash, expiry, the text it shows) and its
 * delivery record (what it was last given, and when). Setting a new image leaves the
 * delivery record alone, so the next poll sees a different hash and refreshes.
 */
import type { CareContext } from "../../core/context";
import { isoNow } from "../../../platform/core/clock";

export interface DeviceStateRow {
  sensor_id: string;
  template_id: number | null;
  image_hash: string | null;
  rendered_text: string | null;
  rendered_at: string | null;
  expires_at: string | null;
  last_served_hash: string | null;
  last_served_at: string | null;
  updated_at: string;
}

export interface ActiveImage {
  template_id: number;
  image_hash: string;
  rendered_text: string;
  expires_at: string;
}

export async function getDeviceState(ctx: CareContext, sensorId: string): Promise<DeviceStateRow | undefined> {
  return ctx.db<DeviceStateRow>("eink_device_states").where({ sensor_id: sensorId }).first();
}

export async function listDeviceStates(ctx: CareContext): Promise<DeviceStateRow[]> {
  return ctx.db<DeviceStateRow>("eink_device_states").select("*").orderBy("sensor_id");
}

/** Returns the image hashes the displays showed before, so unreferenced files can go. */
export async function setActiveImage(ctx: CareContext, sensorIds: readonly string[], image: ActiveImage): Promise<string[]> {
  const now = isoNow(ctx.clock);
  return ctx.db.transaction(async (trx) => {
    const before: { image_hash: string | null }[] = await trx("eink_device_states").whereIn("sensor_id", sensorIds).select("image_hash");
    const values = { ...image, rendered_at: now, updated_at: now };
    if (sensorIds.length > 0) {
      await trx("eink_device_states")
        .insert(sensorIds.map((sensor_id) => ({ sensor_id, ...values })))
        .onConflict("sensor_id")
        .merge(Object.keys(values));
    }
    return before.map((b) => b.image_hash).filter((h): h is string => !!h && h !== image.image_hash);
  });
}

/** Back to the default card: the active image goes, the delivery record stays. */
export async function clearActiveImage(ctx: CareContext, sensorIds: readonly string[]): Promise<string[]> {
  const before: { image_hash: string | null }[] = await ctx.db("eink_device_states").whereIn("sensor_id", sensorIds).select("image_hash");
  await ctx
    .db("eink_device_states")
    .whereIn("sensor_id", sensorIds)
    .update({ template_id: null, image_hash: null, rendered_text: null, rendered_at: null, expires_at: null, updated_at: isoNow(ctx.clock) });
  return before.map((b) => b.image_hash).filter((h): h is string => !!h);
}

export async function recordDelivery(ctx: CareContext, sensorId: string, hash: string, at: string): Promise<void> {
  await ctx
    .db("eink_device_states")
    .insert({ sensor_id: sensorId, last_served_hash: hash, last_served_at: at, updated_at: at })
    .onConflict("sensor_id")
    .merge(["last_served_hash", "last_served_at", "updated_at"]);
}

/** A deleted template: the displays that showed it keep their image, not the reference. */
export async function detachTemplate(ctx: CareContext, templateId: number): Promise<void> {
  await ctx.db("eink_device_states").where({ template_id: templateId }).update({ template_id: null });
}

/** Whether a display's active image is this one (the image store keeps it then). */
export async function imageOnAnyDisplay(ctx: CareContext, hash: string): Promise<boolean> {
  return !!(await ctx.db("eink_device_states").where({ image_hash: hash }).first("sensor_id"));
}
