/**
 * How a card is encoded for a display: `rgb` (8-bit colour PNG) or `bw_dither` (1-bit
 * PNG, Floyd–Steinberg dithered) for black-and-white panels that cannot grey. The names
 * are the spec's layout `color_mode` values.
 */
import { z } from "zod";

export const COLOR_MODES = ["rgb", "bw_dither"] as const;
export type ColorMode = (typeof COLOR_MODES)[number];
export const colorModeSchema = z.enum(COLOR_MODES, { error: "must be rgb or bw_dither" });
