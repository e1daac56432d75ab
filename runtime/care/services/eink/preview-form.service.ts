/**
 * The live preview of the template editor: a template (or none) with any of its parts
 * overridden by the form, an uploaded background included, rendered and never saved.
 */
import { z } from "zod";
import type { CareContext } from "../../core/context";
import { parseInput } from "../../../platform/core/validation";
import { normalizeBackground } from "./background";
import { colorModeSchema } from "./color-mode";
import { isKnownFont } from "./fonts";
import { textsForRegions } from "./render-request";
import { renderCard, type CardLayout } from "./renderer";
import { defaultRegions } from "./region";
import type { TemplateUpload } from "./templates.service";
import { layoutFor, resolveTemplate } from "./template-resolve";
import { parseRegions, parseRegionTexts } from "./template-input";
import { MAX_STORE_ID } from "../../../../nodes/_kit/store-id";

const previewFormSchema = z
  .object({
    template_id: z
      .string()
      .regex(/^[1-9]\d{0,9}$/, "must be a template id")
      .transform(Number)
      .refine((n) => n <= MAX_STORE_ID, "must be a template id")
      .optional(),
    template: z.string().trim().min(1).optional(),
    text: z.string().max(5000).optional(),
    texts_json: z.string().optional(),
    regions_json: z.string().optional(),
    font_filename: z.string().refine(isKnownFont, "unknown font; GET /api/v1/image/fonts lists the available files").optional(),
    color_mode: colorModeSchema.optional(),
    // Accepted so the editor can post its whole create form unchanged; not used here.
    name: z.string().optional(),
    description: z.string().optional(),
    is_default: z.string().optional(),
  })
  .strict();

/** The base template: the one named, else the default, else a blank card. */
async function baseLayout(ctx: CareContext, ref: { template_id?: number; template?: string }): Promise<{ name: string; layout: CardLayout }> {
  const named = ref.template_id !== undefined || ref.template !== undefined;
  try {
    const template = await resolveTemplate(ctx, ref);
    return { name: template.name, layout: await layoutFor(ctx, template) };
  } catch (err) {
    if (named) throw err;
    return { name: "(new template)", layout: { background: null, regions: defaultRegions(), font_filename: null, color_mode: "rgb" } };
  }
}

export async function previewFromForm(ctx: CareContext, upload: TemplateUpload): Promise<Buffer> {
  const form = parseInput(previewFormSchema, upload.fields);
  const base = await baseLayout(ctx, form);
  const layout: CardLayout = {
    ...base.layout,
    ...(upload.image ? { background: await normalizeBackground(upload.image), backgroundKey: undefined } : {}),
    ...(form.regions_json !== undefined ? { regions: parseRegions("regions_json", form.regions_json) } : {}),
    ...(form.font_filename !== undefined ? { font_filename: form.font_filename } : {}),
    ...(form.color_mode !== undefined ? { color_mode: form.color_mode } : {}),
  };
  const byRegion = form.texts_json !== undefined ? parseRegionTexts("texts_json", form.texts_json) : undefined;
  const texts = textsForRegions(base.name, layout.regions, form.text, byRegion);
  return (await renderCard(layout, texts)).png;
}
