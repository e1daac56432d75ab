/**
 * The quiz tools (care/services/knowledge/delivery): an agent, or the voice companion in a quiz
 * conversation, reads the current question, answers it and ends the session, as the senior
 * does on the tablet. The answer tool's result carries what comes next (`advance`), so a
 * caller goes from question to question to the end without asking again.
 */
import { z } from "zod";
import { answer, complete, current } from "../../../services/knowledge/delivery";
import { defineTool, type ToolDef } from "../tool";
import { storeId } from "../../../../../nodes/_kit/store-id";

const sessionId = storeId().describe("the quiz session's id (quiz.session_id of the run, or get_current_quiz_question)");
const record = z.record(z.string(), z.unknown());
const plain = <T>(v: T): Record<string, unknown> => JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
const SESSIONS = "/api/v1/knowledge-interactions/quiz-sessions";

export const QUIZ_TOOLS: readonly ToolDef[] = [
  defineTool({
    name: "get_current_quiz_question",
    title: "Current quiz question",
    description:
      "The question a quiz session is at (its text, choices with their ids, picture), with the session's progress; the newest open session when none is named. `question` is null once the session has ended.",
    input: z.object({ session_id: sessionId.optional() }),
    output: record,
    twin: (a) => (a.session_id ? `GET ${SESSIONS}/${a.session_id}` : `GET ${SESSIONS}`),
    run: async ({ ctx }, a) => plain(await current(ctx, a.session_id)),
  }),
  defineTool({
    name: "submit_quiz_answer",
    title: "Answer a quiz question",
    description:
      "Answer the current question of a quiz session: `choice_id` for a multiple-choice question (or the choice's words as `open_ended_text`), `open_ended_text` for an open one. The first answer to a question counts; a repeat returns it. The result says whether it was right and `advance`: the next question, or done with the score.",
    input: z.object({
      session_id: sessionId,
      question_ord: z.number().int().describe("the `ord` of the question answered (get_current_quiz_question)"),
      choice_id: z.string().min(1).max(64).optional(),
      open_ended_text: z.string().min(1).max(2000).optional(),
    }),
    output: record,
    twin: (a) => `POST ${SESSIONS}/${a.session_id}/answers`,
    destructive: true,
    run: async ({ ctx, principal }, a) => plain(await answer(ctx, a.session_id, a.question_ord, a, principal.name === "voice companion" ? "voice" : "mcp")),
  }),
  defineTool({
    name: "complete_quiz_session",
    title: "End a quiz session",
    description:
      "End a quiz session now and get its score: completed when every question was answered, else abandoned. A session already ended answers its result.",
    input: z.object({ session_id: sessionId }),
    output: record,
    twin: (a) => `POST ${SESSIONS}/${a.session_id}/complete`,
    destructive: true,
    run: async ({ ctx }, a) => plain(await complete(ctx, a.session_id)),
  }),
];
