/**
 * The message catalogs (issue 49): one JSON file per language in `catalogs/` (named by its
 * BCP 47 tag: `de.json`, `hi.json`, `pt-BR.json`), read once and loaded into one i18next
 * instance. Adding a language is adding its file; nothing else lists the languages. English
 * is the source every other catalog follows (a test holds them to its keys). Plural keys use
 * i18next's `_one`/`_other`/… suffixes, chosen by the language's `Intl.PluralRules`.
 */
import fs from "node:fs";
import path from "node:path";
import i18next, { type i18n, type Resource, type ResourceLanguage, type TOptions } from "i18next";

/** The language every other catalog follows and everything falls back to. */
export const SOURCE_LANGUAGE = "en";

/** A catalog's messages: nested objects of strings. */
export interface Messages {
  [key: string]: string | Messages;
}

// Read from the sources beside the build (dist/runtime/platform/i18n → the repository), as the
// web app's static files are: a catalog is data, not code, and is not compiled.
export const CATALOG_DIR = [path.resolve(__dirname, "../../../../runtime/platform/i18n/catalogs"), path.join(__dirname, "catalogs")].find((d) =>
  fs.existsSync(path.join(d, `${SOURCE_LANGUAGE}.json`)),
) as string;

let loaded: { resources: Map<string, Messages>; i18n: i18n } | undefined;

function load(): { resources: Map<string, Messages>; i18n: i18n } {
  if (loaded) return loaded;
  if (!CATALOG_DIR) throw new Error(`the message catalogs are missing (no ${SOURCE_LANGUAGE}.json found beside ${__dirname})`);
  const resources = new Map<string, Messages>();
  for (const file of fs.readdirSync(CATALOG_DIR).sort()) {
    if (!file.endsWith(".json")) continue;
    resources.set(file.slice(0, -".json".length), JSON.parse(fs.readFileSync(path.join(CATALOG_DIR, file), "utf8")) as Messages);
  }
  const bundles: Resource = {};
  for (const [lng, messages] of resources) bundles[lng] = { translation: messages as ResourceLanguage };
  const instance = i18next.createInstance();
  void instance.init({
    resources: bundles,
    lng: SOURCE_LANGUAGE,
    fallbackLng: SOURCE_LANGUAGE,
    initAsync: false,
    // Strings go into text nodes and speech, never into HTML: nothing to escape.
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  loaded = { resources, i18n: instance };
  return loaded;
}

/** The shipped catalogs' tags, e.g. `["de", "en", "hi"]`. */
export const catalogLanguages = (): string[] => [...load().resources.keys()];

/** A catalog as its file has it; undefined for a language with no catalog. */
export const catalog = (language: string): Messages | undefined => load().resources.get(language);

/** The shipped languages, each with its own name for itself (`Deutsch`, `हिन्दी`): for a picker. */
export function shippedLanguages(): Array<{ language: string; name: string }> {
  return catalogLanguages().map((language) => {
    const name = (catalog(language)?.language as Messages | undefined)?.name;
    return { language, name: typeof name === "string" ? name : language };
  });
}

/**
 * The catalogs a tag reads from, most specific first: `de-AT` → `de-AT`, `de`, then the
 * household's language and its base, then English, each only if it has a catalog.
 */
export function catalogChain(tag: string, household: string = SOURCE_LANGUAGE): string[] {
  const { i18n: instance, resources } = load();
  // i18next's own resolution (`de-AT` → `de`), as its t() walks it; its services are untyped.
  const chain = instance.services.languageUtils.toResolveHierarchy(tag, [household, SOURCE_LANGUAGE]) as string[];
  return [...new Set(chain)].filter((lng) => resources.has(lng));
}

function merge(under: Messages, over: Messages): Messages {
  const out: Messages = { ...under };
  for (const [k, v] of Object.entries(over)) {
    const below = out[k];
    out[k] = typeof v === "object" && typeof below === "object" ? merge(below, v) : v;
  }
  return out;
}

/** Every message for a tag, resolved along its chain (a key its own catalog lacks comes from the next). */
export function messagesFor(tag: string, household: string = SOURCE_LANGUAGE): Messages {
  return catalogChain(tag, household)
    .reverse()
    .reduce<Messages>((acc, lng) => merge(acc, catalog(lng) ?? {}), {});
}

/** One message in a tag's language, with i18next's interpolation and plurals (`count`). */
export function translate(tag: string, key: string, options: TOptions = {}, household: string = SOURCE_LANGUAGE): string {
  return load().i18n.t(key, { ...options, lng: tag, fallbackLng: catalogChain(tag, household) }) as string;
}

/** One language's messages: `words("chat.button.on_it")`. */
export type Words = (key: string, options?: TOptions) => string;

/** A tag's `translate`, bound (a chat's, the senior's), falling back to the household's language, then English. */
export const wordsIn =
  (tag: string, household: string = SOURCE_LANGUAGE): Words =>
  (key, options = {}) =>
    translate(tag, key, options, household);
