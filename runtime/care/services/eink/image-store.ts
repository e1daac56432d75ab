/**
 * PNG images named `eink/images/<sha256>.png` in the media store (files under the data dir on
 * one box, the shared store with `cluster.enabled`: household/media/object-store.ts). The hash
 * is the name, the delivery record's `last_served_hash` and the dedupe key at once: ten
 * displays showing one message share one image.
 */
import { createHash } from "node:crypto";
import type { CareContext } from "../../core/context";
import { mediaObjects } from "../../../household/media/media-objects";
import { imageOnAnyDisplay } from "./device-states.store";
import { backgroundInUse } from "./templates.store";

export const sha256Hex = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

// Hashes come from our own rows, but the check keeps a bad row from naming a path elsewhere.
const objectFor = (hash: string): string => {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not an image hash: ${hash}`);
  return `eink/images/${hash}.png`;
};

/** Stores the PNG (once per content) and returns its hash. */
export async function saveImage(ctx: CareContext, png: Buffer): Promise<string> {
  const hash = sha256Hex(png);
  const objects = mediaObjects(ctx);
  // Written whole before it is named (a rename on one box), so a display polling meanwhile never reads half of one.
  if (!(await objects.stat(objectFor(hash)))) await objects.put(objectFor(hash), png, ctx.clock.now());
  return hash;
}

export async function readImage(ctx: CareContext, hash: string): Promise<Buffer | null> {
  return mediaObjects(ctx).get(objectFor(hash));
}

export const imageExists = async (ctx: CareContext, hash: string): Promise<boolean> => (await mediaObjects(ctx).stat(objectFor(hash))) !== null;

/** Deletes the image once no template and no display refers to it any more. */
export async function pruneImage(ctx: CareContext, hash: string | null | undefined): Promise<void> {
  if (!hash) return;
  const [tpl, state] = await Promise.all([backgroundInUse(ctx, hash), imageOnAnyDisplay(ctx, hash)]);
  if (tpl || state) return;
  await mediaObjects(ctx).delete(objectFor(hash));
}
