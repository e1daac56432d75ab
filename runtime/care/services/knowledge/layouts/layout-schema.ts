/**
 * What a layout is (the spec's "Layout" resource): which surfaces it renders for, how many
 * pictures it takes, and for each picture slot the size, fit, colour mode and format of every
 * surface's variant. The enums are closed: a value the renderer does not know must stop the
 * start, not reach a senior's screen as a broken picture.
 */
import { z } from "zod";

export const SURFACES = ["pwa", "eink"] as const;
export const APPLIES_TO = ["info_card", "quiz"] as const;
export const FIT_MODES = ["cover", "contain"] as const;
export const COLOR_MODES = ["rgb", "bw_dither"] as const;
export const FORMATS = ["webp", "png"] as const;

export type Surface = (typeof SURFACES)[number];
export type AppliesTo = (typeof APPLIES_TO)[number];

const side = z.number().int().min(16).max(4096);

export const variantSpecSchema = z
  .object({
    target_width: side,
    target_height: side,
    fit_mode: z.enum(FIT_MODES),
    color_mode: z.enum(COLOR_MODES),
    format: z.enum(FORMATS),
    quality: z.number().int().min(1).max(100).optional(),
  })
  .strict();
export type VariantSpec = z.infer<typeof variantSpecSchema>;

export const slotSpecSchema = z
  .object({
    slot_id: z.string().regex(/^[a-z0-9_]{1,40}$/, "lower-case letters, digits and _"),
    variants: z.object({ pwa: variantSpecSchema.optional(), eink: variantSpecSchema.optional() }).strict(),
  })
  .strict();
export type SlotSpec = z.infer<typeof slotSpecSchema>;

export const layoutSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9_]{1,64}$/, "lower-case letters, digits and _ (at most 64)"),
    display_name: z.string().min(1).max(100),
    applies_to: z.enum(APPLIES_TO),
    surfaces: z.array(z.enum(SURFACES)).min(1),
    min_images: z.number().int().min(0),
    max_images: z.number().int().min(0),
    image_slots: z.array(slotSpecSchema),
  })
  .strict()
  .superRefine((l, ctx) => {
    if (l.min_images > l.max_images) ctx.addIssue({ code: "custom", path: ["min_images"], message: `${l.min_images} is more than max_images ${l.max_images}` });
    if (l.max_images !== l.image_slots.length)
      ctx.addIssue({ code: "custom", path: ["max_images"], message: `${l.max_images} but the layout has ${l.image_slots.length} image_slots` });
    const ids = new Set<string>();
    l.image_slots.forEach((s, i) => {
      if (ids.has(s.slot_id)) ctx.addIssue({ code: "custom", path: ["image_slots", i, "slot_id"], message: `'${s.slot_id}' is used twice` });
      ids.add(s.slot_id);
      for (const surface of SURFACES) {
        // A dithered picture is 1 bit per pixel: only PNG keeps it exact (WebP would blur it).
        if (s.variants[surface]?.color_mode === "bw_dither" && s.variants[surface]?.format !== "png")
          ctx.addIssue({ code: "custom", path: ["image_slots", i, "variants", surface, "format"], message: "bw_dither needs format png" });
        const has = s.variants[surface] !== undefined;
        if (has !== l.surfaces.includes(surface))
          ctx.addIssue({
            code: "custom",
            path: ["image_slots", i, "variants", surface],
            message: has ? `the layout's surfaces do not include '${surface}'` : `missing: the layout renders for '${surface}'`,
          });
      }
    });
  });
export type Layout = z.infer<typeof layoutSchema>;

/** "image_slots.0.variants.eink.fit_mode: 'squash' is not one of cover, contain" for each problem. */
export function describeLayoutProblems(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const at = issue.path.map(String).join(".") || "(layout)";
      const input = "input" in issue ? issue.input : undefined;
      if (issue.code === "invalid_value") return `${at}: '${String(input)}' is not one of ${issue.values.map(String).join(", ")}`;
      if (issue.code === "unrecognized_keys") return `${at === "(layout)" ? "" : `${at}.`}${issue.keys.join(", ")}: unknown field`;
      return `${at}: ${issue.message}${input !== undefined && typeof input !== "object" ? ` (got '${String(input)}')` : ""}`;
    })
    .join("; ");
}
