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
import { encodeGreyRows, greyRowsScratch, writeGreyBlock } from "./png-writer";
import type { Region } from "./region";
import { staticLayer, type StaticLayer } from "./static-layer";
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

function fillBox(ctx: SKRSContext2D, region: Region): void {
  if (!region.bg_color) return;
  ctx.fillStyle = region.bg_color;
  ctx.fillRect(region.x, region.y, region.width, region.height);
}

/** Fits `text` (not blank) into the region and draws it, clipped to the region. */
function drawText(ctx: SKRSContext2D, region: Region, text: string, fontFile: string | null, measure: Measure): FittedText {
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

const hasText = (text: string | undefined): text is string => text !== undefined && text.trim() !== "";

// One drawing surface for every render: allocating a fresh 800x480 surface costs ~5 ms,
// more than drawing a whole card. It is safe to share because everything from the first
// stroke to reading the pixels back runs synchronously (no await in between).
let drawing: { canvas: Canvas; ctx: SKRSContext2D } | undefined;

function drawingSurface(): { canvas: Canvas; ctx: SKRSContext2D } {
  if (!drawing) {
    const canvas = canvasLib().createCanvas(EINK_WIDTH, EINK_HEIGHT);
    drawing = { canvas, ctx: canvas.getContext("2d") };
  }
  return drawing;
}

/**
 * A greyscale card drawn over its cached static layer: each region with text gets its
 * box back from the layer (a plain rectangle when the layer is one grey there), then its text; only those regions are read back and converted,
 * into a copy of the layer's rows. Pixel for pixel the card `drawWhole` draws, because the
 * regions are apart (each region's pixels are its box plus its own clipped text) and
 * everything outside them is the layer. Null when a text pixel has colour: the caller
 * then draws the card whole and writes it in colour.
 */
function drawOnLayer(layer: StaticLayer, greyRows: Buffer, layout: CardLayout, texts: Readonly<Record<string, string>>, measure: Measure): RenderedCard | null {
  const { ctx } = drawingSurface();
  const fitted: Record<string, FittedText> = {};
  const drawn: Region[] = [];
  layout.regions.forEach((region, i) => {
    const text = texts[region.name];
    if (!hasText(text)) return; // its box is in the layer already
    const { x, y, width, height } = region;
    const fill = layer.regionFill[i];
    if (fill) {
      ctx.fillStyle = fill;
      ctx.fillRect(x, y, width, height);
    } else ctx.drawImage(layer.canvas, x, y, width, height, x, y, width, height);
    fitted[region.name] = drawText(ctx, region, text, layout.font_filename, measure);
    drawn.push(region);
  });
  const rows = greyRowsScratch(EINK_WIDTH, EINK_HEIGHT);
  greyRows.copy(rows);
  if (drawn.length === 0) return { png: encodeGreyRows(rows, EINK_WIDTH, EINK_HEIGHT), fitted };
  // One read of the box around the drawn regions: each read has a fixed cost (three reads
  // of the bench's regions took twice as long as one of the box around them), and the box
  // is still less than a whole-card read, a 1.5 MB copy into fresh memory.
  const left = Math.min(...drawn.map((r) => r.x));
  const top = Math.min(...drawn.map((r) => r.y));
  const right = Math.max(...drawn.map((r) => r.x + r.width));
  const bottom = Math.max(...drawn.map((r) => r.y + r.height));
  const box = ctx.getImageData(left, top, right - left, bottom - top).data;
  const stride = right - left;
  for (const { x, y, width, height } of drawn) {
    const start = ((y - top) * stride + (x - left)) * 4;
    if (!writeGreyBlock(box.subarray(start), stride, width, height, rows, EINK_WIDTH, x, y)) return null;
  }
  return { png: encodeGreyRows(rows, EINK_WIDTH, EINK_HEIGHT), fitted };
}

/** The whole card, stroke by stroke: any layout, any colour mode. */
async function drawWhole(background: Canvas | null, layout: CardLayout, texts: Readonly<Record<string, string>>, measure: Measure): Promise<RenderedCard> {
  const { canvas, ctx } = drawingSurface();
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, EINK_WIDTH, EINK_HEIGHT);
  if (background) ctx.drawImage(background, 0, 0, EINK_WIDTH, EINK_HEIGHT);
  const fitted: Record<string, FittedText> = {};
  for (const region of layout.regions) {
    fillBox(ctx, region);
    const text = texts[region.name];
    if (hasText(text)) fitted[region.name] = drawText(ctx, region, text, layout.font_filename, measure);
  }
  const pixels = canvas.data(); // a copy: the next render may draw at once
  return { png: await encodePixels(pixels, EINK_WIDTH, EINK_HEIGHT, layout.color_mode), fitted };
}

/** Renders `texts` (by region name) onto the layout; regions without text show only their box. */
export async function renderCard(layout: CardLayout, texts: Readonly<Record<string, string>>): Promise<RenderedCard> {
  const background = layout.background ? await decodeBackground(layout.background, layout.backgroundKey) : null;
  const measure = measurer(layout.font_filename);
  // The layer needs a stable name for the background; a colour card is written by sharp from
  // the whole canvas, and a dithered one diffuses error across the whole card, so both draw whole.
  if (layout.color_mode === "rgb" && (!layout.background || layout.backgroundKey)) {
    const layer = staticLayer(background && layout.backgroundKey ? { canvas: background, key: layout.backgroundKey } : null, layout.regions);
    if (layer.greyRows && layer.regionsApart) {
      const card = drawOnLayer(layer, layer.greyRows, layout, texts, measure);
      if (card) return card;
    }
  }
  return drawWhole(background, layout, texts, measure);
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
