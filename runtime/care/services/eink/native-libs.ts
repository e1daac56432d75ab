/**
 * Skia (@napi-rs/canvas) and libvips (sharp) are loaded on first use, not at startup: most
 * of the time the service only answers display polls from stored hashes, and the two
 * native libraries would otherwise sit in memory from the first second.
 */
type CanvasLib = typeof import("@napi-rs/canvas");
// sharp is a CommonJS function; its typings describe it as an ES default export.
type SharpLib = typeof import("sharp").default;

let canvas: CanvasLib | undefined;
let sharp: SharpLib | undefined;

export const canvasLib = (): CanvasLib => (canvas ??= require("@napi-rs/canvas") as CanvasLib);

export const sharpLib = (): SharpLib => (sharp ??= require("sharp") as SharpLib);
