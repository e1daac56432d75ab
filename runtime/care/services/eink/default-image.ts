/**
 * What a display shows when it has no current message: the default template's background,
 * encoded in the template's colour mode. For `rgb` that is the stored background itself;
 * a `bw_dither` copy is made once per background and kept in the image store.
 */
import type { CareContext } from "../../core/context";
import { imageExists, readImage, saveImage } from "./image-store";
import { convertPng } from "./png-encode";
import type { EinkTemplate } from "./template";

const converted = new Map<string, string>();

/** The hash (and so the file) of the default card for this template, or null if its file is gone. */
export async function defaultCardHash(ctx: CareContext, template: EinkTemplate): Promise<string | null> {
  if (template.color_mode === "rgb") return (await imageExists(ctx, template.background_hash)) ? template.background_hash : null;
  const key = `${ctx.dataDir}\u0000${template.background_hash}\u0000${template.color_mode}`;
  const known = converted.get(key);
  if (known && (await imageExists(ctx, known))) return known;
  const background = await readImage(ctx, template.background_hash);
  if (!background) return null;
  const hash = await saveImage(ctx, await convertPng(background, template.color_mode));
  converted.set(key, hash);
  return hash;
}
