/**
 * The one way names a person types are compared: rooms (unique, and the `room_name` of
 * activities, alerts, tracking and filters), e-ink templates, rules. Two names are the same
 * name when their keys are equal. Keys are made here, in JavaScript, and never with SQL
 * `lower()`: SQLite folds only ASCII ('KÜCHE' and 'Küche' stay apart) and PostgreSQL follows
 * the database's locale, so the same data would match on one store and not on the other.
 *
 * The key is NFKC, then full case mapping (upper, then lower: 'ß' → 'SS' → 'ss', so 'Straße'
 * and 'STRASSE' are one name, as Unicode case folding has them), NFKC again (case mapping can
 * leave combining marks uncomposed), then surrounding blanks trimmed. NFKC makes a decomposed
 * 'Ku\u0308che', the precomposed 'Küche' and full-width 'ＫÜＣＨＥ' one spelling. Both case
 * mappings are JavaScript's locale-independent ones (never `toLocale…Case`), so a key does not
 * depend on the machine's language. Blanks inside a name are kept as they are.
 */

/** Longest key the store holds (`name_key` columns): a normalized name may grow ('ß' → 'ss'). */
export const NAME_KEY_MAX_LENGTH = 400;

export function nameKey(name: string): string {
  return name.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC").trim();
}

/** Do two names, either possibly missing, name the same thing? Missing matches nothing. */
export const sameName = (a: string | null | undefined, b: string | null | undefined): boolean =>
  a !== null && a !== undefined && b !== null && b !== undefined && nameKey(a) === nameKey(b);

/** For schemas: a name whose key fits the key column (only contrived names grow past it). */
export const nameKeyFits = (name: string): boolean => nameKey(name).length <= NAME_KEY_MAX_LENGTH;
export const NAME_KEY_TOO_LONG = `too long once normalized (more than ${NAME_KEY_MAX_LENGTH} characters)`;
