/**
 * Delivery of the knowledge repository to the senior (care/services/knowledge/delivery): info cards
 * and quiz sessions, the `/ws` frames of the web app, the interactions API. Owns
 * quiz_sessions, quiz_responses and info_card_deliveries; reads cards and quizzes only
 * through cards/card-delivery.read.ts and quizzes/quiz-delivery.read.ts.
 */
import type { CareContext } from "../../../core/context";
import { registerDeliveryFrames } from "./delivery.ws";
import { disarmAll } from "./quiz-run";
import { ADOPT_EVERY_MS, clustered, repeatOnClock } from "../../../../platform/cluster/adopt";
import { leasesOf } from "../../../../platform/cluster/cluster";
import { whileHolding } from "../../../../platform/cluster/leases";
import { adoptOpenSessions, armOpenSessions, endSessionsOfRun } from "./quiz-sessions.service";

export { deliverCard, dismissCard, cardViewed } from "./card-delivery.service";
export { startQuiz, current, answer, complete, abandon, timeOut } from "./quiz-sessions.service";
export { interactionsRouter } from "./interactions.router";

/** Once per app: the web app's frames, and the timeouts of sessions left open by the last run. Returns how to stop. */
export function startKnowledgeDelivery(ctx: CareContext): () => void {
  registerDeliveryFrames(ctx);
  // Several instances: each arms the sessions it starts; the `quiz-timeouts` holder also
  // watches every open session in the store, so one whose instance died still times out.
  const stopAdopting = clustered(ctx)
    ? whileHolding(leasesOf(ctx), "quiz-timeouts", () =>
        repeatOnClock(
          ctx.clock,
          ADOPT_EVERY_MS,
          () => adoptOpenSessions(ctx),
          (err) => ctx.log.error({ err }, "quiz: watching open sessions failed"),
        ),
      )
    : null;
  if (!stopAdopting) armOpenSessions(ctx).catch((err: unknown) => ctx.log.error({ err }, "quiz: re-arming the timeouts of open sessions failed"));
  const unsubscribe = ctx.engine?.live.subscribe(
    (e) =>
      void endSessionsOfRun(ctx, e.execution_id, `the run was ${e.status}`).catch((err: unknown) =>
        ctx.log.error({ err, execution_id: e.execution_id }, "quiz: ending the quiz of a stopped run failed"),
      ),
    ["pipeline_cancelled", "pipeline_failed"],
  );
  return () => {
    unsubscribe?.();
    disarmAll(ctx);
    // A watch round under way may still arm a session it read: disarmed again once that round has ended.
    if (stopAdopting) void stopAdopting().then(() => disarmAll(ctx));
  };
}
