/**
 * What kind of answer a family question wants, and whether a passage holds one. "How old is
 * Leo?" has one subject word ("leo") that many passages share; the one that answers it holds an
 * age next to the name ("Leo is five", "Leo (5)"). The same for when (days, times), who (names
 * of relations) and where (places in a home). Words only: no model, no GPU.
 */

export interface AnswerKind {
  name: "age" | "when" | "who" | "where" | "count";
  /** Whether a (lower-case) word of a passage is the kind of word this answer is made of. */
  cue: (word: string) => boolean;
}

const NUMBER_WORDS = new Set(
  (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty " +
    "thirty forty fifty sixty seventy eighty ninety hundred half"
  ).split(" "),
);
const isNumber = (w: string): boolean => NUMBER_WORDS.has(w) || /^\d{1,3}$/.test(w);

const set = (s: string): Set<string> => new Set(s.split(" "));
const AGE = set("year years old aged age born birthday turns turned months");
const WHEN = set(
  "monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday saturdays sunday sundays weekend weekends " +
    "morning mornings afternoon afternoons evening evenings night noon midnight lunch dinner breakfast teatime clock am pm " +
    "daily weekly monthly every today tomorrow tonight january february march april may june july august september october november december " +
    "christmas easter birthday",
);
const WHO = set(
  "daughter son grandson granddaughter grandchild grandchildren husband wife sister brother niece nephew cousin aunt uncle mother father mum mom dad " +
    "friend neighbour neighbor doctor nurse carer caregiver physiotherapist pharmacist called named name",
);
const WHERE = set(
  "kitchen bedroom bathroom hall hallway living room cellar basement attic garage garden balcony cupboard drawer shelf wardrobe table desk bed door window " +
    "under behind beside next above below inside upstairs downstairs left right top bottom corner box street lives",
);

const KINDS: ReadonlyArray<{ ask: RegExp; kind: AnswerKind }> = [
  { ask: /\bhow old\b|\bwhat age\b|\bhow many years\b|\bage of\b/, kind: { name: "age", cue: (w) => isNumber(w) || AGE.has(w) } },
  { ask: /\bhow many\b|\bhow much\b/, kind: { name: "count", cue: isNumber } },
  {
    ask: /^\s*when\b|\bwhen (is|are|does|do|will|did)\b|\bwhat (day|days|time)\b|\bwhich day\b|\bhow often\b/,
    kind: { name: "when", cue: (w) => WHEN.has(w) || /^\d{1,2}$/.test(w) },
  },
  { ask: /\bwho\b|\bname\b|\bcalled\b/, kind: { name: "who", cue: (w) => WHO.has(w) } },
  { ask: /\bwhere\b/, kind: { name: "where", cue: (w) => WHERE.has(w) } },
];

/** The kind of answer the question asks for, or null (a question of no kind above). */
export function answerKind(question: string): AnswerKind | null {
  const q = question.toLowerCase().replace(/[’']/g, "'");
  return KINDS.find((k) => k.ask.test(q))?.kind ?? null;
}

/** How close a passage's words come to the answer: 1 a cue within three words of a subject word, 0.5 a cue elsewhere, 0 none. */
export function cueStrength(kind: AnswerKind, passageWords: readonly string[], isSubject: (word: string) => boolean): number {
  const cues: number[] = [];
  const subjects: number[] = [];
  passageWords.forEach((w, i) => {
    if (isSubject(w)) subjects.push(i);
    else if (kind.cue(w)) cues.push(i);
  });
  if (cues.length === 0) return 0;
  return cues.some((c) => subjects.some((s) => Math.abs(c - s) <= 3)) ? 1 : 0.5;
}
