/**
 * What follows a prompt's outcome, besides the run resuming: other web-app clients drop the
 * popup, a dismiss from the senior acknowledges the run's open alerts, and an escalate with
 * `auto_escalate` raises an emergency alert. These never undo an applied answer: a failure
 * here is logged, not returned to the one who answered.
 */
import type { CareContext } from "../../core/context";
import { actOnAlert, createAlert, openAlertIdsOfRun } from "../../../household/alerts/alerts.service";
import type { Action, Channel, PromptRow } from "../../../household/prompts/prompts.store";

export const AUTO_ESCALATE_ALERT_TYPE = "interactive_prompt_escalation";

export interface Outcome {
  channel: Channel;
  action: Action;
  /** Who answered (the key's name), for the alert actions it causes. */
  actor: string;
}

export async function applyOutcomeEffects(ctx: CareContext, prompt: PromptRow, o: Outcome): Promise<void> {
  ctx.webapp.broadcast({ type: "interactive_prompt_closed", execution_id: prompt.execution_id, step_id: prompt.step_id, action: o.action, channel: o.channel });
  ctx.bus.publish("prompt.answered", { execution_id: prompt.execution_id, step_id: prompt.step_id, channel: o.channel, action: o.action });
  try {
    // Running out the countdown is nobody saying "I'm okay": only a real dismiss acknowledges.
    if (o.action === "dismiss" && o.channel !== "timeout") await acknowledgeOpenAlerts(ctx, prompt, o);
    if (o.action === "escalate" && prompt.auto_escalate) await raiseEmergency(ctx, prompt, o);
  } catch (err) {
    ctx.log.error({ err, execution_id: prompt.execution_id, step_id: prompt.step_id }, "interactive prompt: alert follow-up failed");
  }
}

async function acknowledgeOpenAlerts(ctx: CareContext, prompt: PromptRow, o: Outcome): Promise<void> {
  const open = await openAlertIdsOfRun(ctx, prompt.execution_id);
  const note = `answered "dismiss" to "${prompt.message || "voice prompt"}" (${o.channel})`;
  for (const id of open) {
    try {
      await actOnAlert(ctx, id, { action: "dismiss", note }, o.actor);
    } catch (err) {
      // Resolved by a caregiver meanwhile: nothing left to acknowledge.
      ctx.log.debug({ err, alert_id: id }, "interactive prompt: alert not acknowledged");
    }
  }
}

async function raiseEmergency(ctx: CareContext, prompt: PromptRow, o: Outcome): Promise<void> {
  const run = await ctx.engine?.store.get(prompt.execution_id);
  const answered = o.channel === "timeout" ? "no answer before the countdown ran out" : `answered "escalate" (${o.channel})`;
  await createAlert(ctx, {
    alert_type: AUTO_ESCALATE_ALERT_TYPE,
    level: "emergency",
    description: `${prompt.message || "Voice prompt"}: ${answered}`,
    room_name: run?.trigger_context.room_name ?? null,
    sensor_id: run?.trigger_context.sensor_id ?? null,
    rule_id: prompt.rule_id,
    execution_id: prompt.execution_id,
  });
}
