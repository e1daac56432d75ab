/**
 * The web app's side of cards and quizzes on `/ws`.
 *
 * Server → app: `info_card {delivery_id, card}`, `info_card_closed {delivery_id}`,
 * `quiz_question {session}`, `quiz_answered {…answer result, session}`, `quiz_closed {session}`.
 * App → server (each needs its REST twin's permission, as prompt answers do):
 * `quiz_answer {session_id, question_ord, choice_id?, open_ended_text?}` (answered with
 * `quiz_answer_result`), `quiz_abandon {session_id}`, `info_card_viewed {delivery_id}`,
 * `info_card_dismiss {delivery_id}`.
 *
 * Replay: a tablet that connects is sent the cards not put away and the quizzes still open,
 * as prompts are replayed, so a tablet that was offline shows them.
 */
import { z } from "zod";
import type { CareContext } from "../../../core/context";
import type { WebAppClient, WebAppFrame } from "../../../../platform/ws/webapp-hub";
import { parseInput } from "../../../../platform/core/validation";
import { quizForDelivery } from "../quizzes/quiz-delivery.read";
import { cardViewed, dismissCard, openCardFrames } from "./card-delivery.service";
import { openSessions } from "./quiz-sessions.store";
import { abandon, answer } from "./quiz-sessions.service";
import { sessionView } from "./quiz-view";
import { storeId } from "../../../../../nodes/_kit/store-id";

export const ANSWER_TWIN = { method: "POST", path: "/api/v1/knowledge-interactions/quiz-sessions/0/answers" } as const;
export const ABANDON_TWIN = { method: "POST", path: "/api/v1/knowledge-interactions/quiz-sessions/0/abandon" } as const;
export const DISMISS_TWIN = { method: "POST", path: "/api/v1/knowledge-interactions/info-card-deliveries/0/dismiss" } as const;

const id = storeId();
const answerFrame = z
  .object({ session_id: id, question_ord: z.number().int(), choice_id: z.string().max(64).nullish(), open_ended_text: z.string().max(2000).nullish() })
  .strict();

const registered = new WeakSet<CareContext>();

export function registerDeliveryFrames(ctx: CareContext): void {
  if (registered.has(ctx)) return;
  registered.add(ctx);
  const body = (frame: WebAppFrame) => {
    const { type: _type, ...rest } = frame;
    return rest;
  };
  ctx.webapp.onMessage("quiz_answer", ANSWER_TWIN, async (frame, client) => {
    const a = parseInput(answerFrame, body(frame));
    const result = await answer(ctx, a.session_id, a.question_ord, a, "pwa");
    client.send({ type: "quiz_answer_result", ...result });
  });
  ctx.webapp.onMessage("quiz_abandon", ABANDON_TWIN, async (frame, client) => {
    const a = parseInput(z.object({ session_id: id }).strict(), body(frame));
    await abandon(ctx, a.session_id, client.principal.name);
  });
  ctx.webapp.onMessage("info_card_viewed", DISMISS_TWIN, async (frame) => {
    await cardViewed(ctx, parseInput(z.object({ delivery_id: id }).strict(), body(frame)).delivery_id);
  });
  ctx.webapp.onMessage("info_card_dismiss", DISMISS_TWIN, async (frame, client) => {
    await dismissCard(ctx, parseInput(z.object({ delivery_id: id }).strict(), body(frame)).delivery_id, client.principal.name);
  });
  ctx.webapp.onConnect((client) =>
    replay(ctx, client).catch((err) => ctx.log.warn({ err, caller: client.principal.name }, "web app: open cards and quizzes were not replayed")),
  );
}

async function replay(ctx: CareContext, client: WebAppClient): Promise<void> {
  for (const frame of await openCardFrames(ctx)) client.send(frame);
  const now = ctx.clock.now();
  for (const s of await openSessions(ctx.db)) {
    if (s.expires_at && Date.parse(s.expires_at) <= now) continue;
    const quiz = await quizForDelivery(ctx.db, s.quiz_id);
    if (quiz) client.send({ type: "quiz_question", session: await sessionView(ctx, quiz, s) });
  }
}
