/**
 * What a caregiver may send to create or change a template: multipart form fields
 * (all strings) on create, JSON on update. Both end in the same checked values.
 */
import { z } from "zod";
import { ValidationError } from "../../../platform/core/errors";
import { NAME_KEY_TOO_LONG, nameKeyFits } from "../../../platform/core/name-key";
import { parseInput } from "../../../platform/core/validation";
import { colorModeSchema } from "./color-mode";
import { isKnownFont } from "./fonts";
import { defaultRegions, regionsSchema, type Region } from "./region";

const name = z.string().trim().min(1, "must not be empty").max(200).refine(nameKeyFits, NAME_KEY_TOO_LONG);
const description = z.string().max(2000);
const fontFilename = z.string().refine(isKnownFont, "unknown font; GET /api/v1/image/fonts lists the available files");
const formBool = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off"], { error: "must be true or false" })
  .transform((v) => ["true", "1", "yes", "on"].includes(v));

/** Multipart fields of `POST /image/templates` (the `image` file comes separately). */
export const templateFormSchema = z
  .object({
    name,
    description: description.optional(),
    font_filename: z.union([z.literal(""), fontFilename]).optional(),
    regions_json: z.string().optional(),
    is_default: formBool.optional(),
    color_mode: colorModeSchema.optional(),
  })
  .strict();

/** JSON body of `PUT /image/templates/{id}`; `regions` and `regions_json` are synonyms. */
export const templateUpdateSchema = z
  .object({
    name,
    description,
    font_filename: fontFilename.nullable(),
    regions: z.array(z.unknown()),
    regions_json: z.union([z.string(), z.array(z.unknown())]),
    is_default: z.boolean(),
    color_mode: colorModeSchema,
  })
  .partial()
  .strict();

/**
 * Reads regions given as a JSON string or an array; an empty list means "one centred
 * default region". Errors name the field and the region: `regions_json.1.align: ...`.
 */
export function parseRegions(field: string, raw: string | readonly unknown[]): Region[] {
  let value: unknown = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return defaultRegions();
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ValidationError(`${field}: not valid JSON`);
    }
  }
  const parsed = parseInput(z.object({ [field]: regionsSchema }), { [field]: value })[field] as Region[];
  return parsed.length === 0 ? defaultRegions() : parsed;
}

/** Region texts sent as a JSON object string (multipart) or an object (JSON). */
export const regionTextsSchema = z.record(z.string(), z.string().max(5000, "at most 5000 characters"));

export function parseRegionTexts(field: string, raw: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ValidationError(`${field}: not valid JSON`);
  }
  return parseInput(z.object({ [field]: regionTextsSchema }), { [field]: value })[field] as Record<string, string>;
}
