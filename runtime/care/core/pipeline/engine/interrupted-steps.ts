/**
 * A step a restart found under way (its `running` record was written before it started):
 * what it is known to have done, from what it leaves in the store as it goes. A notification
 * step raises its alert before it sends, and records each channel's receipt once they are
 * all back; a prompt is written before it is shown. What the kill cut short is said too, so
 * a person knows to check rather than assume: the step is not run again (it acts on the
 * world, and a second send is worse than an honest "not known").
 */
import type { CareContext } from "../../context";
import { alertByKey, firstSendReceipts } from "../../../../household/alerts/alerts.service";
import { findPrompt } from "../../../../household/prompts/prompts.store";
import { levelPlan } from "../../language/alert-levels";
import type { SnapshotStep } from "./graph-snapshot";
import type { StepReceipt, StepRecord } from "./run-state";

export interface StepFindings {
  done: string[];
  receipts?: StepReceipt[];
}

/** The step's record as the timeline shows it after the restart. */
export function interruptedRecord(marker: StepRecord, findings: StepFindings, cause: string): StepRecord {
  const rec: StepRecord = { ...marker, status: "interrupted", success: false, error: `interrupted by ${cause}`, done: findings.done };
  if (findings.receipts?.length) rec.receipts = findings.receipts;
  return rec;
}

/**
 * What the step had done: `activation` is the one the kill cut short (its alert carries the
 * key `run:step:activation`, as the engine gives the step its idempotency key).
 */
export async function stepFindings(
  ctx: CareContext,
  runId: number,
  step: SnapshotStep | undefined,
  marker: StepRecord,
  activation: number,
): Promise<StepFindings> {
  const notRepeated = "not run again after the restart, so nothing it does went out twice";
  if (marker.step_type === "notification") return notificationFindings(ctx, runId, step, marker, activation, notRepeated);
  if (marker.step_type === "interactive_prompt") {
    const prompt = await findPrompt(ctx.db, runId, marker.step_id);
    return {
      done: [
        prompt
          ? `the prompt had been put to the senior (prompt #${prompt.id}); an answer to it now changes nothing`
          : "no prompt had been put to the senior yet",
        notRepeated,
      ],
    };
  }
  return { done: ["what it had done before the restart is not recorded", notRepeated] };
}

async function notificationFindings(
  ctx: CareContext,
  runId: number,
  step: SnapshotStep | undefined,
  marker: StepRecord,
  activation: number,
  notRepeated: string,
): Promise<StepFindings> {
  const done: string[] = [];
  const alert = await alertByKey(ctx, `${runId}:${marker.step_id}:${activation}`);
  let receipts: StepReceipt[] = [];
  if (alert) {
    done.push(`raised alert #${alert.id} (${alert.level}); it escalates until someone acknowledges it`);
    receipts = (await firstSendReceipts(ctx, alert.id)).map((l) => ({
      channel: l.channel ?? "?",
      delivered: l.delivered,
      ...(l.detail ? { detail: l.detail } : {}),
    }));
  }
  if (receipts.length === 0) {
    const channels = channelsOf(ctx, step);
    done.push(
      `was sending through ${channels.length ? channels.join(", ") : "its channels"} when the service stopped; no answer was recorded, so whether it arrived is not known`,
    );
  }
  done.push(notRepeated);
  return { done, ...(receipts.length ? { receipts } : {}) };
}

/** The channels the step sends through: its own list, else its level's (as the send chose them). */
function channelsOf(ctx: CareContext, step: SnapshotStep | undefined): string[] {
  const config = step?.config ?? {};
  if (Array.isArray(config.channels) && config.channels.length) return config.channels.map(String);
  return levelPlan(ctx.settings, typeof config.alert_level === "string" ? config.alert_level : "info").channels;
}
