/**
 * The small schemas more than one settings section uses (each section lives beside the code
 * that reads it and is composed into the root schema by settings.ts, which no section imports).
 */
import { z } from "zod";
import { canonicalTag, LANGUAGE_TAG_HINT } from "../i18n/language-tag";

/** A BCP 47 language tag, stored in its canonical form (`en-us` → `en-US`). */
export const languageTag = z
  .string()
  .refine((t) => canonicalTag(t) !== null, LANGUAGE_TAG_HINT)
  .transform((t) => canonicalTag(t) ?? t);
