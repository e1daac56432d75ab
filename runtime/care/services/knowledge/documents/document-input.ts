/**
 * Reading a document's fields as a form or JSON sends them: title, source_text and tags (a
 * JSON list, or words separated by commas, as a plain form field is easiest to fill), and an
 * image's alt_text and ord. Every failure is a 422 naming the field.
 */
import { ValidationError } from "../../../../platform/core/errors";

export const MAX_TITLE = 200;
/** About 500 pages: far more than a family writes, bounded so one upload cannot fill the store. */
export const MAX_SOURCE_TEXT = 2_000_000;
export const MAX_TAGS = 30;
export const MAX_TAG = 50;
export const MAX_ALT_TEXT = 1000;

type Raw = Record<string, unknown>;

function text(raw: Raw, field: string, max: number, required: boolean): string | undefined {
  const v = raw[field];
  if (v === undefined || v === null) {
    if (required) throw new ValidationError(`${field}: required`);
    return undefined;
  }
  if (typeof v !== "string") throw new ValidationError(`${field}: must be text`);
  if (v.length > max) throw new ValidationError(`${field}: at most ${max} characters`);
  return v;
}

/**
 * A form field that is a JSON list, or plain text read by `plain` (multipart sends text only):
 * the parsed list, or the value as given when it is not text.
 */
function listField(v: unknown, field: string, hint: string, plain: (text: string) => unknown[]): unknown {
  if (typeof v !== "string") return v;
  const s = v.trim();
  if (!s.startsWith("[")) return plain(s);
  try {
    return JSON.parse(s) as unknown;
  } catch {
    throw new ValidationError(`${field}: not a JSON list (send ${hint})`);
  }
}

export function parseTags(v: unknown): string[] {
  const list = listField(v, "tags", "a JSON list of words, or words separated by commas", (s) => (s === "" ? [] : s.split(",")));
  if (!Array.isArray(list)) throw new ValidationError("tags: a JSON list of words, or words separated by commas");
  const tags: string[] = [];
  for (const t of list) {
    if (typeof t !== "string") throw new ValidationError("tags: every tag must be text");
    const tag = t.trim();
    if (!tag) continue;
    if (tag.length > MAX_TAG) throw new ValidationError(`tags: '${tag.slice(0, 60)}' is longer than ${MAX_TAG} characters`);
    if (/["\\]/.test(tag)) throw new ValidationError(`tags: '${tag}' may not hold quotes or backslashes`);
    if (!tags.some((x) => x.toLowerCase() === tag.toLowerCase())) tags.push(tag);
  }
  if (tags.length > MAX_TAGS) throw new ValidationError(`tags: at most ${MAX_TAGS}`);
  return tags;
}

export interface DocumentFields {
  title?: string;
  source_text?: string;
  tags?: string[];
}

const KNOWN = new Set(["title", "source_text", "tags"]);

export function documentFields(raw: Raw, creating: boolean): DocumentFields {
  const unknown = Object.keys(raw).filter((k) => !KNOWN.has(k));
  if (unknown.length) throw new ValidationError(`${unknown[0]}: unknown field (a document has title, source_text, tags${creating ? " and images" : ""})`);
  const title = text(raw, "title", MAX_TITLE, creating)?.trim();
  if (title !== undefined && title === "") throw new ValidationError("title: must not be empty");
  // A form sends line breaks as CRLF: kept as plain newlines, as the chunker and the page expect.
  const source_text = text(raw, "source_text", MAX_SOURCE_TEXT, false)?.replace(/\r\n?/g, "\n");
  const tags = raw.tags === undefined || raw.tags === null ? undefined : parseTags(raw.tags);
  return { title, source_text: source_text ?? (creating ? "" : undefined), tags: tags ?? (creating ? [] : undefined) };
}

export interface ImageFields {
  alt_text?: string;
  ord?: number;
}

function ordOf(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" && /^\d{1,6}$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 100000) throw new ValidationError("ord: a whole number from 0 to 100000");
  return n;
}

export function imageFields(raw: Raw, allowed: readonly string[] = ["alt_text", "ord"]): ImageFields {
  const unknown = Object.keys(raw).filter((k) => !allowed.includes(k));
  if (unknown.length) throw new ValidationError(`${unknown[0]}: unknown field (an image has alt_text and ord)`);
  return { alt_text: text(raw, "alt_text", MAX_ALT_TEXT, false), ord: ordOf(raw.ord) };
}

/**
 * The photos' descriptions at upload, in the photos' order: a JSON list of texts, or one text
 * when one photo is sent. A description is what the senior's screen and the search read for it.
 */
export function imageDescriptions(v: unknown, photos: number): string[] {
  const field = "image_descriptions";
  if (v === undefined || v === null || v === "") return [];
  const list = listField(v, field, "a JSON list of texts, one a photo in order", () => [v]);
  if (!Array.isArray(list)) throw new ValidationError(`${field}: a JSON list of texts, one a photo in order`);
  if (list.length > photos) throw new ValidationError(`${field}: ${list.length} descriptions for ${photos} photo${photos === 1 ? "" : "s"}`);
  return list.map((d, i) => {
    if (typeof d !== "string") throw new ValidationError(`${field}[${i}]: must be text`);
    if (d.length > MAX_ALT_TEXT) throw new ValidationError(`${field}[${i}]: at most ${MAX_ALT_TEXT} characters`);
    return d.trim();
  });
}
