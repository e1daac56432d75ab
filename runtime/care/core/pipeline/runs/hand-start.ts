/**
 * A run a person started (the editor's "Run this rule now", `POST /rules/{id}/execute`, MCP's
 * trigger_rule, a rerun) is said as such wherever runs are listed: "started by hand by admin",
 * never "fired (cron)" for a cron rule tried by hand. The spec's fields stay as they are; these
 * words and two optional fields are added.
 */
import type { ExecutionRow } from "../engine/execution-rows";

/** True for a run a person started rather than its trigger. */
export const startedByHand = (r: ExecutionRow): boolean => r.trigger_type === "manual" || r.rerun_of !== null || r.trigger_context.by_hand === true;

/**
 * Who started it, when known. A rerun copies its original's trigger context, `started_by`
 * included, so the name there is the original's starter, not the rerun's: none is given.
 */
const starter = (r: ExecutionRow): string | null => (r.rerun_of === null && r.trigger_context.started_by) || null;

/** "started by hand by admin", "started again by hand (a copy of run #12)"; null for a run its trigger started. */
export function handStartWords(r: ExecutionRow): string | null {
  if (!startedByHand(r)) return null;
  if (r.rerun_of !== null) return `started again by hand (a copy of run #${r.rerun_of})`;
  const who = starter(r);
  return `started by hand${who ? ` by ${who}` : ""}`;
}

/** The optional fields a run's REST views carry when a person started it. */
export function handStartFields(r: ExecutionRow): { started_by_hand?: true; started_by?: string } {
  if (!startedByHand(r)) return {};
  const who = starter(r);
  return { started_by_hand: true, ...(who ? { started_by: who } : {}) };
}
