/**
 * PNG files under `<dataDir>/eink/images/`, named by the SHA-256 of their bytes. The hash
 * is the name, the delivery record's `last_served_hash` and the dedupe key at once: ten
 * displays showing one message share one file.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { CareContext } from "../context";
import { imageOnAnyDisplay } from "./device-states.store";
import { backgroundInUse } from "./templates.store";

export const sha256Hex = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

const imagesDir = (ctx: CareContext): string => path.join(ctx.dataDir, "eink", "images");
// Hashes come from our own rows, but the check keeps a bad row from naming a path elsewhere.
const fileFor = (ctx: CareContext, hash: string): string => {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not an image hash: ${hash}`);
  return path.join(imagesDir(ctx), `${hash}.png`);
};

/** Stores the PNG (once per content) and returns its hash. */
export async function saveImage(ctx: CareContext, png: Buffer): Promise<string> {
  const hash = sha256Hex(png);
  const file = fileFor(ctx, hash);
  if (fs.existsSync(file)) return hash;
  await fs.promises.mkdir(imagesDir(ctx), { recursive: true });
  // Write then rename, so a display polling meanwhile never reads half a file.
  const tmp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  await fs.promises.writeFile(tmp, png);
  await fs.promises.rename(tmp, file);
  return hash;
}

export async function readImage(ctx: CareContext, hash: string): Promise<Buffer | null> {
  try {
    return await fs.promises.readFile(fileFor(ctx, hash));
  } catch {
    return null;
  }
}

export const imageExists = (ctx: CareContext, hash: string): boolean => fs.existsSync(fileFor(ctx, hash));

/** Deletes the file once no template and no display refers to it any more. */
export async function pruneImage(ctx: CareContext, hash: string | null | undefined): Promise<void> {
  if (!hash) return;
  const [tpl, state] = await Promise.all([backgroundInUse(ctx, hash), imageOnAnyDisplay(ctx, hash)]);
  if (tpl || state) return;
  await fs.promises.rm(fileFor(ctx, hash), { force: true });
}
