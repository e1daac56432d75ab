/**
 * What a card shows before any text: the template's background on white, then every
 * region's box. It is the same for every render of a template, so it is drawn once and
 * kept twice: as a canvas, to put back under a region before its new text is drawn, and
 * as greyscale PNG rows, so a render converts and copies only the pixels of the regions
 * that have text (issue 29: reading back and converting the whole 800x480 card was most
 * of a render).
 */
import type { Canvas } from "@napi-rs/canvas";
import { canvasLib } from "./native-libs";
import { EINK_HEIGHT, EINK_WIDTH } from "./canvas-size";
import { writeGreyBlock } from "./png-writer";
import type { Region } from "./region";

type Box = Pick<Region, "x" | "y" | "width" | "height">;

export interface StaticLayer {
  canvas: Canvas;
  /** Greyscale PNG rows (filter byte 0, then one byte per pixel); null when the layer has colour. */
  greyRows: Buffer | null;
  /**
   * Whether the regions lie inside the card and apart from each other. Only then is a
   * region's final look its box plus its own (clipped) text, whatever the others draw.
   */
  regionsApart: boolean;
  /**
   * By region (in the layout's order), the colour that puts its box back exactly when the
   * layer is one grey all over the region (a plain card, a plain box), else null. A rectangle
   * of it costs a fifth of copying the region back from the layer canvas (issue 29: copying
   * three regions back was ~0.4 ms a card).
   */
  regionFill: (string | null)[];
}

// A layer is ~1.9 MB (canvas and rows); a household uses a handful of templates.
const MAX_CACHED_LAYERS = 8;
const layers = new Map<string, StaticLayer>();

const inside = (b: Box): boolean => b.x >= 0 && b.y >= 0 && b.x + b.width <= EINK_WIDTH && b.y + b.height <= EINK_HEIGHT;
const overlap = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

function regionsApart(regions: readonly Region[]): boolean {
  for (let i = 0; i < regions.length; i++) {
    if (!inside(regions[i])) return false;
    for (let j = i + 1; j < regions.length; j++) if (overlap(regions[i], regions[j])) return false;
  }
  return true;
}

/** The one grey value of `rows` inside the box, or null when it has more than one. */
function uniformGrey(rows: Buffer, b: Box): number | null {
  const rowBytes = EINK_WIDTH + 1;
  const value = rows[b.y * rowBytes + 1 + b.x];
  for (let y = b.y; y < b.y + b.height; y++) {
    const start = y * rowBytes + 1 + b.x;
    for (let i = start; i < start + b.width; i++) if (rows[i] !== value) return null;
  }
  return value;
}

function drawLayer(background: Canvas | null, regions: readonly Region[]): StaticLayer {
  const canvas = canvasLib().createCanvas(EINK_WIDTH, EINK_HEIGHT);
  const ctx = canvas.getContext("2d");
  // The same strokes, in the same order, as a card drawn whole (renderer.ts).
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, EINK_WIDTH, EINK_HEIGHT);
  if (background) ctx.drawImage(background, 0, 0, EINK_WIDTH, EINK_HEIGHT);
  for (const r of regions) {
    if (!r.bg_color) continue;
    ctx.fillStyle = r.bg_color;
    ctx.fillRect(r.x, r.y, r.width, r.height);
  }
  const rows = Buffer.alloc((EINK_WIDTH + 1) * EINK_HEIGHT); // zeroed: every filter byte "none"
  const grey = writeGreyBlock(canvas.data(), EINK_WIDTH, EINK_WIDTH, EINK_HEIGHT, rows, EINK_WIDTH, 0, 0);
  const apart = regionsApart(regions);
  const regionFill = regions.map((r) => {
    const v = grey && apart ? uniformGrey(rows, r) : null;
    return v === null ? null : `rgb(${v}, ${v}, ${v})`;
  });
  return { canvas, greyRows: grey ? rows : null, regionsApart: apart, regionFill };
}

/**
 * The layer for `background` (decoded, with its stable key; null for plain white) and the
 * regions' boxes, drawn on first use and cached by what it depends on.
 */
export function staticLayer(background: { canvas: Canvas; key: string } | null, regions: readonly Region[]): StaticLayer {
  const boxes = regions.map((r) => `${r.x},${r.y},${r.width},${r.height},${r.bg_color ?? ""}`).join(";");
  const key = `${background ? background.key : ""}|${boxes}`;
  const hit = layers.get(key);
  if (hit) {
    layers.delete(key); // most recently used last, so the eviction below drops the stalest
    layers.set(key, hit);
    return hit;
  }
  const layer = drawLayer(background?.canvas ?? null, regions);
  if (layers.size >= MAX_CACHED_LAYERS) layers.delete(layers.keys().next().value as string);
  layers.set(key, layer);
  return layer;
}
