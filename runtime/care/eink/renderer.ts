/**
 * Draws a card: the template's background, then each region's background colour and its
 * text, fitted by `fitText`, then encodes the PNG in the template's colour mode.
 * Everything that can be reused between renders (decoded backgrounds, font strings) is
 * cached, because the same few templates are drawn again and again.
 */
import type { Canvas, SKRSContext2D } from "@napi-rs/canvas";
import { canvasLib } from "./native-libs";
import { EINK_HEIGHT, EINK_WIDTH } from "./canvas-size";
import type { ColorMode } from "./color-mode";
import { fontShorthand } from "./fonts";
import { encodePixels } from "./png-encode";
import type { Region } from "./region";
import { fitText, type FittedText, type Measure } from "./text-layout";

export interface CardLayout {
  /** An 800x480 PNG; null draws on white. */
  background: Buffer | null;
  /** Stable id of the background bytes (its hash), for the decode cache. */
  backgroundKey?: string;
  regions: readonly Region[];
  font_filename: string | null;
  color_mode: ColorMode;
}

export interface RenderedCard {
  png: Buffer;
  /** How each region's text was laid out, by region name (for tests and logs). */
  fitted: Record<string, FittedText>;
}

const MAX_CACHED_BACKGROUNDS = 16;
const backgrounds = new Map<string, Canvas>();

/**
 * A background ready to draw. It is kept as a canvas, not an Image: drawing a decoded
 * Image costs ~5 ms each time (Skia decodes it again), drawing a canvas ~0.3 ms.
 */
async function decodeBackground(png: Buffer, key: string | undefined): Promise<Canvas> {
  const hit = key ? backgrounds.get(key) : undefined;
  if (hit) return hit;
  const img = await canvasLib().loadImage(png); // decoding is asynchronous in @napi-rs/canvas
  const canvas = canvasLib().createCanvas(EINK_WIDTH, EINK_HEIGHT);
  canvas.getContext("2d").drawImage(img, 0, 0, EINK_WIDTH, EINK_HEIGHT);
  if (key) {
    if (backgrounds.size >= MAX_CACHED_BACKGROUNDS) backgrounds.delete(backgrounds.keys().next().value as string);
    backgrounds.set(key, canvas);
  }
  return canvas;
}

/** Inner margin so text never touches a region's edge or its coloured box. */
export const regionPadding = (r: Pick<Region, "width" | "height">): number => Math.min(8, Math.floor(Math.min(r.width, r.height) / 10));

// Measuring happens on its own small canvas, so the drawing context's font never has to
// be tracked; JavaScript runs one render's measuring at a time, so one canvas suffices.
let measureCtx: SKRSContext2D | undefined;

// Glyph advances scale linearly with the font size (measured: within 0.1% from 6 to
// 120 px, every shipped script), so each string is measured once at this size and
// scaled, instead of once per size tried. The margin covers the rest; drawing still
// clips and squeezes as a last guard.
const REFERENCE_SIZE = 100;
const SCALE_MARGIN = 1.005;

// Widths at REFERENCE_SIZE by font, kept across renders: the same templates draw the same
// words again and again (names, "medicine", the date), and asking Skia is most of the fitting.
// Bounded per font, oldest first out, so an endless stream of new texts cannot grow it.
const MAX_CACHED_WIDTHS = 20_000;
const widthsByFont = new Map<string, Map<string, number>>();

/** A measure function, asking Skia once per distinct string and font. */
function measurer(fontFile: string | null): Measure {
  const font = fontShorthand(fontFile, REFERENCE_SIZE);
  let widths = widthsByFont.get(font);
  if (!widths) {
    widths = new Map();
    widthsByFont.set(font, widths);
  }
  const cache = widths;
  return (text, sizePx) => {
    let w = cache.get(text);
    if (w === undefined) {
      const ctx = (measureCtx ??= canvasLib().createCanvas(1, 1).getContext("2d"));
      if (ctx.font !== font) ctx.font = font;
      w = ctx.measureText(text).width;
      if (cache.size >= MAX_CACHED_WIDTHS) cache.delete(cache.keys().next().value as string);
      cache.set(text, w);
    }
    return (w * sizePx * SCALE_MARGIN) / REFERENCE_SIZE;
  };
}

function drawRegion(ctx: SKRSContext2D, region: Region, text: string, fontFile: string | null, measure: Measure): FittedText | null {
  if (region.bg_color) {
    ctx.fillStyle = region.bg_color;
    ctx.fillRect(region.x, region.y, region.width, region.height);
  }
  if (!text.trim()) return null;
  const pad = regionPadding(region);
  const inner = { x: region.x + pad, y: region.y + pad, width: region.width - 2 * pad, height: region.height - 2 * pad };
  const fitted = fitText(text, { width: inner.width, height: inner.height, sizeMax: region.font_size_max, sizeMin: region.font_size_min }, measure);
  const anchorX = region.align === "left" ? inner.x : region.align === "right" ? inner.x + inner.width : inner.x + inner.width / 2;
  const blockHeight = fitted.lines.length * fitted.lineHeight;
  const top = inner.y + Math.max(0, (inner.height - blockHeight) / 2);
  ctx.save();
  try {
    // Clipping is the last guarantee that nothing spills into a neighbouring region.
    ctx.beginPath();
    ctx.rect(region.x, region.y, region.width, region.height);
    ctx.clip();
    ctx.font = fontShorthand(fontFile, fitted.sizePx);
    ctx.fillStyle = region.text_color;
    ctx.textAlign = region.align;
    ctx.textBaseline = "middle";
    fitted.lines.forEach((line, i) => {
      // maxWidth squeezes a line that measured within a rounding error of the edge.
      if (line) ctx.fillText(line, anchorX, top + fitted.lineHeight * (i + 0.5), inner.width);
    });
  } finally {
    ctx.restore(); // the surface is shared: no clip may outlive this region
  }
  return fitted;
}

/** Renders `texts` (by region name) onto the layout; regions without text show only their box. */
// One drawing surface for every render: allocating a fresh 800x480 surface costs ~5 ms,
// more than drawing a whole card. It is safe to share because everything from the first
// stroke to reading the pixels back runs synchronously (no await in between).
let drawing: { canvas: Canvas; ctx: SKRSContext2D } | undefined;

/** Renders `texts` (by region name) onto the layout; regions without text show only their box. */
export async function renderCard(layout: CardLayout, texts: Readonly<Record<string, string>>): Promise<RenderedCard> {
  const background = layout.background ? await decodeBackground(layout.background, layout.backgroundKey) : null;
  if (!drawing) {
    const canvas = canvasLib().createCanvas(EINK_WIDTH, EINK_HEIGHT);
    drawing = { canvas, ctx: canvas.getContext("2d") };
  }
  const { canvas, ctx } = drawing;
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, EINK_WIDTH, EINK_HEIGHT);
  if (background) ctx.drawImage(background, 0, 0, EINK_WIDTH, EINK_HEIGHT);
  const measure = measurer(layout.font_filename);
  const fitted: Record<string, FittedText> = {};
  for (const region of layout.regions) {
    const result = drawRegion(ctx, region, texts[region.name] ?? "", layout.font_filename, measure);
    if (result) fitted[region.name] = result;
  }
  const pixels = canvas.data(); // a copy: the next render may draw at once
  return { png: await encodePixels(pixels, EINK_WIDTH, EINK_HEIGHT, layout.color_mode), fitted };
}

/** Draws a background with plain canvas calls (used for the built-in default card). */
export async function renderBackground(draw: (ctx: SKRSContext2D) => void): Promise<Buffer> {
  const canvas = canvasLib().createCanvas(EINK_WIDTH, EINK_HEIGHT); // rare: a fresh surface is fine
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, EINK_WIDTH, EINK_HEIGHT);
  draw(ctx);
  return encodePixels(canvas.data(), EINK_WIDTH, EINK_HEIGHT, "rgb");
}
