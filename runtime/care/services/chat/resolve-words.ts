/**
 * Which replies to an alert's message resolve it (issue 49): one that begins with a resolving
 * word of any catalog (`chat.reply_resolves`: "resolved, done, ok", "erledigt", "हो गया", "ठीक
 * है", and Hindi typed in Latin letters, "ho gaya"); any other reply takes the alert on. Every
 * catalog's words count in every chat: a relative whose chat is set to German may still write
 * "ok", and a Hindi speaker often types Hindi in Latin letters.
 */
import { catalogLanguages, translate } from "../../../platform/i18n/catalogs";

let words: string[] | undefined;

/** The resolving words of every catalog, lower case, longest first (so "हल हो गया" wins over a shorter one). */
export function resolvingWords(): string[] {
  words ??= [
    ...new Set(
      catalogLanguages().flatMap((lng) =>
        translate(lng, "chat.reply_resolves")
          .split(",")
          .map((w) => w.trim().toLocaleLowerCase())
          .filter(Boolean),
      ),
    ),
  ].sort((a, b) => b.length - a.length);
  return words;
}

// After the word: the end, a space or a punctuation mark (the Devanagari danda too); not a letter
// or a vowel sign, so "ok" does not match "okay" and "हो गया" not a longer word. `\b` knows only ASCII letters.
const END = /^(?:$|[\s\p{P}\p{S}])/u;

/** Whether a reply to an alert's message resolves it. */
export function replyResolves(text: string): boolean {
  const said = text.trim().toLocaleLowerCase();
  return resolvingWords().some((w) => said.startsWith(w) && END.test(said.slice(w.length)));
}
