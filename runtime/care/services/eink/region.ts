/**
 * A text region of a template, with the spec's properties and nothing else. Validation
 * names the offending field (`regions.1.font_size_min: ...`) so a caregiver can find it.
 */
import { z } from "zod";
import { EINK_HEIGHT, EINK_WIDTH } from "./canvas-size";

export const ALIGNS = ["left", "center", "right"] as const;

// CSS-style hex colours only: every display firmware and the renderer agree on them.
const color = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, "must be a hex colour like #000000 or #fff");

const px = z.number().int("must be a whole number of pixels");

export const regionSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, "only letters, digits, _ and - are allowed"),
    x: px.min(0, "must be inside the 800x480 canvas").max(EINK_WIDTH - 1, "must be inside the 800x480 canvas"),
    y: px.min(0, "must be inside the 800x480 canvas").max(EINK_HEIGHT - 1, "must be inside the 800x480 canvas"),
    width: px.min(1, "must be at least 1"),
    height: px.min(1, "must be at least 1"),
    font_size_max: px.min(6, "must be at least 6").max(400),
    font_size_min: px.min(6, "must be at least 6").max(400),
    align: z.enum(ALIGNS, { error: "must be one of left, center, right" }).default("center"),
    bg_color: color.nullable().default(null),
    text_color: color.default("#000000"),
  })
  .strict()
  .superRefine((r, issue) => {
    if (r.x + r.width > EINK_WIDTH)
      issue.addIssue({ code: "custom", path: ["width"], message: `x + width must not exceed ${EINK_WIDTH} (is ${r.x + r.width})` });
    if (r.y + r.height > EINK_HEIGHT)
      issue.addIssue({ code: "custom", path: ["height"], message: `y + height must not exceed ${EINK_HEIGHT} (is ${r.y + r.height})` });
    if (r.font_size_min > r.font_size_max)
      issue.addIssue({ code: "custom", path: ["font_size_min"], message: `must not be above font_size_max (${r.font_size_max})` });
  });

export type Region = z.output<typeof regionSchema>;

export const regionsSchema = z
  .array(regionSchema)
  .max(20, "at most 20 regions")
  .superRefine((list, issue) => {
    const seen = new Set<string>();
    list.forEach((r, i) => {
      if (seen.has(r.name)) issue.addIssue({ code: "custom", path: [i, "name"], message: `duplicate region name '${r.name}'` });
      seen.add(r.name);
    });
  });

/** A template without regions gets one centred region covering most of the card. */
export const defaultRegions = (): Region[] => [
  {
    name: "main",
    x: 40,
    y: 40,
    width: EINK_WIDTH - 80,
    height: EINK_HEIGHT - 80,
    font_size_max: 72,
    font_size_min: 20,
    align: "center",
    bg_color: null,
    text_color: "#000000",
  },
];

/** The region a single `text` fills: one named `main`, else `body`, else the first. */
export function mainRegion(regions: readonly Region[]): Region | undefined {
  return regions.find((r) => r.name === "main") ?? regions.find((r) => r.name === "body") ?? regions[0];
}
