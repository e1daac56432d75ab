/** Frames with each face's box and name drawn on them (`include_annotated_image`), as JPEG. */
import fs from "node:fs";
import path from "node:path";
import { lazyModule } from "../../platform/core/lazy-module";

// Skia is loaded when a first frame is annotated.
const canvasLib = lazyModule(() => require("@napi-rs/canvas") as typeof import("@napi-rs/canvas"));

const FONT = "careflow-annotate";
let fontReady: boolean | undefined;

function font(): string {
  if (fontReady === undefined) {
    try {
      const dir = path.dirname(require.resolve("@expo-google-fonts/noto-sans/package.json"));
      const file = path.join(dir, "600SemiBold", "NotoSans_600SemiBold.ttf");
      fontReady = fs.existsSync(file) && Boolean(canvasLib().GlobalFonts.registerFromPath(file, FONT));
    } catch {
      fontReady = false;
    }
  }
  return fontReady ? FONT : "sans-serif";
}

export interface Label {
  bbox: number[];
  text: string;
  known: boolean;
}

export async function annotate(image: Uint8Array, labels: readonly Label[]): Promise<Buffer> {
  const img = await canvasLib().loadImage(Buffer.from(image));
  const canvas = canvasLib().createCanvas(img.width, img.height);
  const g = canvas.getContext("2d");
  g.drawImage(img, 0, 0);
  const size = Math.max(12, Math.round(img.width / 40));
  g.font = `${size}px ${font()}`;
  g.lineWidth = Math.max(2, Math.round(img.width / 320));
  for (const l of labels) {
    const [x1, y1, x2, y2] = l.bbox;
    const color = l.known ? "#2ecc40" : "#ff851b";
    g.strokeStyle = color;
    g.strokeRect(x1, y1, x2 - x1, y2 - y1);
    const w = g.measureText(l.text).width + 8;
    const top = y1 - size - 6 >= 0 ? y1 - size - 6 : y2;
    g.fillStyle = color;
    g.fillRect(x1, top, w, size + 6);
    g.fillStyle = "#000000";
    g.fillText(l.text, x1 + 4, top + size);
  }
  return canvas.encode("jpeg", 85);
}
