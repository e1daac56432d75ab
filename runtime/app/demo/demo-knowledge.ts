/**
 * The demo household's knowledge (first start only): one approved document the senior can ask
 * about ("When is Anna coming?"), a card made from it and a two-question quiz, both approved, so
 * the Knowledge page, the `info_card` and `quiz_start` nodes and `query_knowledge_base` have
 * something to show on a fresh box. Made through the same services as the REST API.
 */
import type { AppContext } from "../context";
import { approveDocument, createDocument } from "../../care/services/knowledge/documents/documents.service";
import { cardLifecycle, createCard } from "../../care/services/knowledge/cards/cards.service";
import { createQuiz, quizLifecycle } from "../../care/services/knowledge/quizzes/quizzes.service";
import { addQuestion } from "../../care/services/knowledge/quizzes/questions.service";

const BY = "demo";

const VISITS =
  "Anna is Rose's daughter. She comes every Sunday at three in the afternoon and stays for tea.\n\n" +
  "She brings the grandchildren, Mia (8) and Leo (5). Mia likes to play cards; Leo likes the garden.\n\n" +
  "If Anna cannot come, she phones on Sunday morning.";

const HEATER =
  "The new heater in the living room has one round knob. Turn it to the right for warmer, to the left for cooler.\n\n" +
  "The green light means it is on. If the red light blinks, call Anna: do not open the heater.";

export async function seedDemoKnowledge(ctx: AppContext): Promise<void> {
  const visits = await createDocument(ctx, BY, { title: "Anna's visits", source_text: VISITS, tags: ["family"] }, []);
  await approveDocument(ctx, visits.id, BY);
  const heater = await createDocument(ctx, BY, { title: "The new heater", source_text: HEATER, tags: ["home"] }, []);
  await approveDocument(ctx, heater.id, BY);

  const card = await createCard(ctx, BY, {
    layout_id: "text_only",
    title: "Anna comes on Sunday",
    body_text: "Anna comes every Sunday at three, with Mia and Leo.",
    tags: ["family"],
    document_id: visits.id,
  });
  await cardLifecycle(ctx, card.id, "approve", BY);

  const quiz = await createQuiz(ctx, BY, {
    title: "Sunday visits",
    intro_voice_template: "A little quiz about Sunday.",
    tags: ["family"],
    document_id: visits.id,
  });
  await addQuestion(ctx, quiz.id, {
    question_type: "multiple_choice",
    question_text: "Who comes on Sundays?",
    choices: [
      { id: "a", text: "Anna", is_correct: true },
      { id: "b", text: "The doctor", is_correct: false },
      { id: "c", text: "The postman", is_correct: false },
    ],
    explanation: "Anna comes every Sunday.",
  });
  await addQuestion(ctx, quiz.id, {
    question_type: "multiple_choice",
    question_text: "Who likes to play cards?",
    choices: [
      { id: "a", text: "Leo", is_correct: false },
      { id: "b", text: "Mia", is_correct: true },
    ],
    explanation: "Mia likes to play cards.",
  });
  await quizLifecycle(ctx, quiz.id, "approve", BY);
}
