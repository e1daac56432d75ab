/** The `interactive_prompts` table: one row per prompt a run put to the senior. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../platform/db/delete-before";
import type { NewPrompt as CarePrompt } from "../../../vocabulary/prompts";
import { toBool } from "../../platform/db/json-column";

export const CHANNELS = ["pwa_popup_text", "pwa_realtime_ai", "timeout"] as const;
/** Channels an answer may come from; "timeout" is the countdown's own, never a client's. */
export const ANSWER_CHANNELS = ["pwa_popup_text", "pwa_realtime_ai"] as const;
export const ACTIONS = ["escalate", "dismiss"] as const;
export type Channel = (typeof CHANNELS)[number];
export type AnswerChannel = (typeof ANSWER_CHANNELS)[number];
export type Action = (typeof ACTIONS)[number];

/** A prompt as the step records it: the handlers' type (nodes/_kit), one definition for both sides. */
export type NewPrompt = CarePrompt;

export interface PromptRow extends NewPrompt {
  id: number;
  answered_at: string | null;
  channel: Channel | null;
  action: Action | null;
}

const TABLE = "interactive_prompts";
const toRow = (r: Record<string, unknown>): PromptRow => ({ ...(r as unknown as PromptRow), auto_escalate: toBool(r.auto_escalate) });

/** Record a prompt; a step prompting again in the same run (a loop) starts a fresh, unanswered row. */
export async function savePrompt(db: Knex, p: NewPrompt): Promise<void> {
  await db(TABLE)
    .insert({ ...p, answered_at: null, channel: null, action: null })
    .onConflict(["execution_id", "step_id"])
    .merge();
}

export async function findPrompt(db: Knex, executionId: number, stepId: number): Promise<PromptRow | undefined> {
  const row = await db(TABLE).where({ execution_id: executionId, step_id: stepId }).first();
  return row ? toRow(row) : undefined;
}

/** Prompts nobody has answered whose countdown is still running at `nowIso`, oldest first. */
export async function openPrompts(db: Knex, nowIso: string): Promise<PromptRow[]> {
  const rows = await db(TABLE)
    .whereNull("answered_at")
    .where("expires_at", ">", nowIso)
    .orderBy([{ column: "created_at" }, { column: "id" }]);
  return rows.map(toRow);
}

/** Unanswered prompts of a run whose countdown has run out by `nowIso`. */
export async function expiredUnanswered(db: Knex, executionId: number, nowIso: string): Promise<PromptRow[]> {
  const rows = await db(TABLE).where({ execution_id: executionId }).whereNull("answered_at").where("expires_at", "<=", nowIso);
  return rows.map(toRow);
}

/** Fill in the outcome unless one is already there; true when this call wrote it. */
export async function claimOutcome(db: Knex, id: number, outcome: { answered_at: string; channel: Channel; action: Action }): Promise<boolean> {
  const n = await db(TABLE).where({ id }).whereNull("answered_at").update(outcome);
  return Number(n) === 1;
}

/** A channel a person answers through (not the countdown's own). */
export const isAnswerChannel = (c: Channel | null): c is AnswerChannel => c !== null && (ANSWER_CHANNELS as readonly string[]).includes(c);

/** Retention (docs/retention.md): deletes at most `limit` prompts answered (or timed out) before the cutoff; an open prompt stays. */
export function prunePromptsBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "interactive_prompts", `answered_at is not null and answered_at < ?`, [cutoffIso], limit);
}
