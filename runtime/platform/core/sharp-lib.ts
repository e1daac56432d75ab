/**
 * sharp (libvips), loaded when an image is first turned, resized or checked: a start that
 * has no image to handle does not load the native library (issue 29).
 */
import { lazyModule } from "./lazy-module";

// sharp is a CommonJS function; its typings describe it as an ES default export.
export const sharpLib = lazyModule(() => require("sharp") as typeof import("sharp").default);
