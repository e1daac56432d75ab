/**
 * The cool-off gate: a `completed` event log of this rule within `cool_off_minutes` holds
 * it. Runs recorded `ignored` (no terminal action), `failed` or still `processing` do not
 * consume the window, as the spec says.
 */
import type { CareContext } from "../../context";
import { lastCompletedLog } from "../../events/event-logs.service";
import type { GateResult } from "../engine/types";
import { isoAt, MINUTE_MS, type GateRule } from "./gate-rule";

export async function coolOffGate(ctx: CareContext, rule: Pick<GateRule, "id" | "cool_off_minutes">): Promise<GateResult> {
  if (!(rule.cool_off_minutes > 0)) return { pass: true };
  const now = ctx.clock.now();
  const last = await lastCompletedLog(ctx, rule.id, isoAt(now - rule.cool_off_minutes * MINUTE_MS), false);
  if (!last) return { pass: true };
  const endsMs = Date.parse(last.timestamp) + rule.cool_off_minutes * MINUTE_MS;
  const left = Math.max(1, Math.ceil((endsMs - now) / MINUTE_MS));
  return {
    pass: false,
    reason: `cool-off: last completed run at ${last.timestamp}; ${rule.cool_off_minutes}-minute cool-off ends at ${isoAt(endsMs)} (${left} min left)`,
  };
}
