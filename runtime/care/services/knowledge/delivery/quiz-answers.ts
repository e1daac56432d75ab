/** Checking an answer against a question: the chosen choice, or an open answer against the expected one. */
import { ValidationError } from "../../../../platform/core/errors";
import type { DeliverableQuestion } from "../deliverable";

export interface GivenAnswer {
  choice_id?: string | null;
  open_ended_text?: string | null;
}

export interface Judged {
  chosen_choice_id: string | null;
  chosen_choice_text: string | null;
  open_ended_text: string | null;
  /** null: an open question without an expected answer (nothing to judge it by). */
  is_correct: boolean | null;
}

/** Lower case, letters and digits only, single spaces: "The Blue  one!" and "the blue one" are the same. */
const plain = (s: string): string =>
  s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

export function judge(q: DeliverableQuestion, a: GivenAnswer): Judged {
  if (q.question_type === "open_ended") {
    const text = (a.open_ended_text ?? "").trim();
    if (!text) throw new ValidationError("open_ended_text: this question is answered in words");
    const expected = plain(q.expected_answer);
    return {
      chosen_choice_id: null,
      chosen_choice_text: null,
      open_ended_text: text.slice(0, 2000),
      is_correct: expected ? plain(text).includes(expected) : null,
    };
  }
  if (!a.choice_id) {
    // Said in words (the voice companion): the choice whose text it is.
    const said = plain(a.open_ended_text ?? "");
    const match = said ? q.choices.find((c) => plain(c.text) === said) : undefined;
    if (!match) throw new ValidationError(`choice_id: one of ${q.choices.map((c) => c.id).join(", ")}`);
    return { chosen_choice_id: match.id, chosen_choice_text: match.text, open_ended_text: a.open_ended_text ?? null, is_correct: match.is_correct };
  }
  const choice = q.choices.find((c) => c.id === a.choice_id);
  if (!choice)
    throw new ValidationError(
      `choice_id: '${String(a.choice_id).slice(0, 64)}' is not a choice of question ${q.ord} (${q.choices.map((c) => c.id).join(", ")})`,
    );
  return { chosen_choice_id: choice.id, chosen_choice_text: choice.text, open_ended_text: null, is_correct: choice.is_correct };
}

/** The right choice of a multiple-choice question (the first marked right). */
export const rightChoice = (q: DeliverableQuestion) => q.choices.find((c) => c.is_correct) ?? null;
