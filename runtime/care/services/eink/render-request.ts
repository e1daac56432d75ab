/**
 * What a caller asks to render: one `text` for the main region, or text per region by
 * name, on a template chosen by id or name, for some or all displays. The same shapes
 * serve REST, the `eink` notification channel and MCP.
 */
import { z } from "zod";
import { ValidationError } from "../../../platform/core/errors";
import { colorModeSchema } from "./color-mode";
import { mainRegion, type Region } from "./region";
import { regionTextsSchema } from "./template-input";
import { storeId } from "../../../../nodes/_kit/store-id";

// A month: longer-lived content belongs on the default template, not in a message.
export const MAX_EXPIRY_MINUTES = 60 * 24 * 30;

const contentFields = {
  text: z.string().max(5000, "at most 5000 characters").optional(),
  regions: regionTextsSchema.optional(),
  template_id: storeId().optional(),
  template: z.string().trim().min(1, "must not be empty").optional(),
  color_mode: colorModeSchema.optional(),
};

const sensorIds = z.array(z.string().trim().min(1, "must not be empty")).max(200);

export const previewRequestSchema = z.object(contentFields).strict();
export type PreviewRequest = z.input<typeof previewRequestSchema>;

export const renderRequestSchema = z
  .object({
    ...contentFields,
    sensor_ids: sensorIds.optional(),
    expires_in_minutes: z.number().positive().max(MAX_EXPIRY_MINUTES, `at most ${MAX_EXPIRY_MINUTES} (30 days)`).optional(),
  })
  .strict();
export type RenderRequest = z.input<typeof renderRequestSchema>;

export const resetRequestSchema = z.object({ sensor_ids: sensorIds.optional() }).strict();
export type ResetRequest = z.input<typeof resetRequestSchema>;

/**
 * Maps the request onto the template's regions. `text` fills the main region; `regions`
 * names others. A name the template lacks is a 422 listing the names it has, because the
 * original silently drew one text everywhere and nobody noticed wrong region names.
 */
export function textsForRegions(
  templateName: string,
  regions: readonly Region[],
  text: string | undefined,
  byRegion: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const names = new Set(regions.map((r) => r.name));
  const texts: Record<string, string> = {};
  for (const [name, value] of Object.entries(byRegion ?? {})) {
    if (!names.has(name)) {
      throw new ValidationError(`regions.${name}: template '${templateName}' has no region named '${name}' (it has: ${[...names].join(", ")})`);
    }
    texts[name] = value;
  }
  if (text !== undefined) {
    const main = mainRegion(regions);
    if (main && byRegion && byRegion[main.name] !== undefined) {
      throw new ValidationError(`text: fills region '${main.name}', which regions also sets; send one of them`);
    }
    if (main) texts[main.name] = text;
  }
  return texts;
}

/** The texts as one string for `rendered_text`, in region order. */
export const joinTexts = (regions: readonly Region[], texts: Readonly<Record<string, string>>): string =>
  regions
    .map((r) => texts[r.name] ?? "")
    .filter((t) => t.trim() !== "")
    .join("\n");
