/** Reading a model's answer: JSON extraction, the hallucination marker, the suppression rule. */

export type JsonAnswer = { ok: true; value: unknown } | { ok: false };

const FENCE = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/;

/**
 * The answer as JSON: the whole text, or the inside of a Markdown code fence, or the
 * outermost `{...}` / `[...]` when a model wraps its JSON in a sentence.
 */
export function parseJsonAnswer(text: string): JsonAnswer {
  const trimmed = text.trim();
  const fenced = FENCE.exec(trimmed)?.[1]?.trim();
  const candidates = [trimmed, fenced, span(trimmed, "{", "}"), span(trimmed, "[", "]")];
  for (const c of candidates) {
    if (!c) continue;
    try {
      return { ok: true, value: JSON.parse(c) };
    } catch {
      // try the next reading
    }
  }
  return { ok: false };
}

function span(text: string, open: string, close: string): string | undefined {
  const a = text.indexOf(open);
  const b = text.lastIndexOf(close);
  return a >= 0 && b > a ? text.slice(a, b + 1) : undefined;
}

/** Case-insensitive; a blank marker never matches. */
export const hasMarker = (text: string, marker: string | undefined): boolean =>
  marker !== undefined && marker.trim() !== "" && text.toLowerCase().includes(marker.trim().toLowerCase());

/**
 * Does the answer say no notification is needed? Only an explicit `false` (or the text
 * "false") counts: a suppressed alert is the costly mistake, so anything unclear lets it through.
 */
export function saysNoNotification(answer: unknown): boolean {
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return false;
  const flag = (answer as Record<string, unknown>).is_notification_needed;
  return flag === false || (typeof flag === "string" && flag.trim().toLowerCase() === "false");
}
