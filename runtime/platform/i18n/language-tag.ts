/**
 * BCP 47 language tags (`de`, `hi-IN`, `en-GB`) as the household and its people give them:
 * well-formed by Intl's own parser, kept in their canonical spelling (`EN-gb` → `en-GB`), so
 * the catalog chosen and the dates formatted follow the same tag.
 */

/** The canonical spelling of a well-formed tag; null for anything Intl does not take as one. */
export function canonicalTag(tag: string): string | null {
  if (typeof tag !== "string" || tag.trim() === "" || tag.length > 35) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag.trim());
    return canonical ?? null;
  } catch {
    return null;
  }
}

export const LANGUAGE_TAG_HINT = "a BCP 47 language tag like en, de or hi-IN";
