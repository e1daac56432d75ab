/**
 * A quiz session and the run that waits for it. The `quiz_start` step parks its branch (as
 * `wait` does, in the store, so a restart keeps it) until a little after the session's
 * expiry; the session's end resumes it through `engine.answer` with the score, the first
 * outcome winning. The session's own timeout is a timer on the app clock, armed at start and
 * re-armed for open sessions when the app starts again; the engine's later resume time is only
 * a backstop should that timer not fire (its data then says `timed_out`). The timeout is
 * claimed per row (open → timed_out), so two instances arming it still end it once.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { CareContext } from "../../../core/context";
import type { SessionRow } from "./quiz-sessions.store";
import { runData } from "./quiz-view";

const PARK_RETRY_MS = 20;
const PARK_RETRIES = 500;

export function armTimeout(ctx: CareContext, s: SessionRow, onExpiry: (sessionId: number) => Promise<void>): void {
  if (!s.expires_at) return;
  disarmTimeout(ctx, s.id);
  const fire = () => {
    ctx.work.quizCountdowns.delete(s.id);
    onExpiry(s.id).catch((err: unknown) => ctx.log.error({ err, session_id: s.id }, "quiz: timing a session out failed"));
  };
  const at = Date.parse(s.expires_at);
  if (at <= ctx.clock.now()) return void setImmediate(fire);
  ctx.work.quizCountdowns.set(s.id, ctx.clock.at(at, fire));
}

/** Is this session's timeout armed on this instance? */
export const isArmed = (ctx: CareContext, sessionId: number): boolean => ctx.work.quizCountdowns.has(sessionId);

export function disarmTimeout(ctx: CareContext, sessionId: number): void {
  ctx.work.quizCountdowns.get(sessionId)?.();
  ctx.work.quizCountdowns.delete(sessionId);
}

/** Stops every timer of this app (its close). */
export function disarmAll(ctx: CareContext): void {
  for (const cancel of ctx.work.quizCountdowns.values()) cancel();
  ctx.work.quizCountdowns.clear();
}

/**
 * The run parked at the session's step continues with `quiz.*`. An answer can end a short
 * quiz before its step has parked (over MCP, say): it waits for the park, as prompt answers do.
 */
export async function resumeRun(ctx: CareContext, s: SessionRow): Promise<void> {
  const engine = ctx.engine;
  if (s.execution_id === null || s.step_id === null || !engine) return;
  for (let attempt = 0; attempt < PARK_RETRIES; attempt++) {
    const outcome = await engine.answer(s.execution_id, s.step_id, runData(s));
    if (outcome !== "not_waiting") return void ctx.log.info({ session_id: s.id, execution_id: s.execution_id, outcome }, "quiz: run resumed");
    const run = await engine.store.get(s.execution_id);
    if (!run || run.status !== "running") return; // cancelled, failed or gone: nothing waits for the score
    if (!(await engine.whenParked(s.execution_id, s.step_id))) await sleep(PARK_RETRY_MS);
  }
  ctx.log.warn({ session_id: s.id, execution_id: s.execution_id }, "quiz: the run never parked at its step; it was not resumed");
}
