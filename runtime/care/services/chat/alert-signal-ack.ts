/**
 * An alert raised by a `dementia_signal` rule's run came from one signal (its `signal_id` is in
 * the run's trigger payload): acknowledging the alert from chat acknowledges that signal too,
 * by the chat user, with the reply's text as feedback, so the rule's `cooldown_minutes` holds
 * the next one exactly as after `POST /cts/signals/{id}/acknowledge`. A signal keeps its first
 * acknowledgment.
 */
import type { CareContext } from "../../core/context";
import { isoNow } from "../../../platform/core/clock";
import { acknowledgeSignal, findSignals, type DementiaSignal } from "../../../household/tracking/signals.store";
import { getRun } from "../../core/pipeline/runs/runs.service";

/** The signal the alert's run was fired for, or null (another trigger, no run, the run or signal gone). */
export async function signalOfRun(ctx: CareContext, executionId: number | null): Promise<DementiaSignal | null> {
  if (executionId === null) return null;
  const run = await getRun(ctx, executionId).catch(() => null);
  if (!run || run.trigger_context.trigger_type !== "dementia_signal") return null;
  const signalId = run.trigger_context.webhook_payload?.signal_id;
  if (typeof signalId !== "string" || !signalId) return null;
  return (await findSignals(ctx.db, { signal_id: signalId }))[0] ?? null;
}

/** Acknowledges the signal behind the alert's run, if there is one; the signal as it is now, or null. */
export async function acknowledgeAlertSignal(
  ctx: CareContext,
  executionId: number | null,
  by: string,
  feedback: string | null,
): Promise<DementiaSignal | null> {
  const signal = await signalOfRun(ctx, executionId);
  if (!signal) return null;
  return acknowledgeSignal(ctx.db, signal.id, { acknowledged_at: isoNow(ctx.clock), acknowledged_by: by, feedback: feedback?.trim().slice(0, 2000) || null });
}
