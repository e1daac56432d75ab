/**
 * A fresh install gets one default template, so a display shows a calm card (and a
 * render has somewhere to go) before anyone designs one: a white card with title, body
 * and footer regions, separated by thin rules that the renderer draws once at startup.
 */
import type { CareContext } from "../../core/context";
import { isoNow } from "../../../platform/core/clock";
import { nameKey } from "../../../platform/core/name-key";
import { DEFAULT_FONT_FILENAME } from "./fonts";
import { saveImage } from "./image-store";
import type { Region } from "./region";
import { renderBackground } from "./renderer";
import { regionsToText } from "./template";
import { anyTemplate, insertTemplateUnlessNameTaken } from "./templates.store";

export const DEFAULT_TEMPLATE_NAME = "Default card";

const region = (name: string, y: number, height: number, max: number, min: number): Region => ({
  name,
  x: 40,
  y,
  width: 720,
  height,
  font_size_max: max,
  font_size_min: min,
  align: "center",
  bg_color: null,
  text_color: "#000000",
});

export const DEFAULT_TEMPLATE_REGIONS: readonly Region[] = [
  region("title", 24, 88, 56, 28),
  region("body", 128, 264, 64, 22),
  region("footer", 408, 56, 30, 16),
];

let background: Promise<Buffer> | undefined;
const defaultBackground = (): Promise<Buffer> =>
  (background ??= renderBackground((ctx) => {
    ctx.fillStyle = "#000000";
    ctx.fillRect(40, 118, 720, 2);
    ctx.fillRect(40, 400, 720, 2);
  }));

/** Creates the default template when the store has no template at all (a fresh install). */
export async function ensureDefaultTemplate(ctx: CareContext): Promise<void> {
  if (await anyTemplate(ctx)) return;
  const hash = await saveImage(ctx, await defaultBackground());
  const now = isoNow(ctx.clock);
  // Two instances starting on one PostgreSQL store: the second finds the name taken.
  await insertTemplateUnlessNameTaken(ctx, {
    name: DEFAULT_TEMPLATE_NAME,
    name_key: nameKey(DEFAULT_TEMPLATE_NAME),
    description: "Built-in white card with title, body and footer",
    font_filename: DEFAULT_FONT_FILENAME,
    regions_json: regionsToText(DEFAULT_TEMPLATE_REGIONS),
    is_default: true,
    color_mode: "rgb",
    background_hash: hash,
    created_at: now,
    updated_at: now,
  });
  ctx.log.info("default e-ink template created");
}
