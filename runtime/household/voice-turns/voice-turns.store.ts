/** The `voice_turns` table: what was said in each conversation with the voice companion. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../platform/db/delete-before";

export type VoiceReason = "notification" | "prompt" | "senior" | "api";

export interface NewTurn {
  session_id: string;
  role: "user" | "assistant";
  text: string;
  at: string;
  reason: VoiceReason;
  execution_id: number | null;
  step_id: number | null;
}

export interface TurnRow extends NewTurn {
  id: number;
}

const TABLE = "voice_turns";

export async function saveTurn(db: Knex, turn: NewTurn): Promise<void> {
  await db(TABLE).insert(turn);
}

/** The newest `limit` turns (of one conversation, or of all), oldest first as they were said. */
export async function recentTurns(db: Knex, q: { session_id?: string; limit: number }): Promise<TurnRow[]> {
  const query = db(TABLE).orderBy("id", "desc").limit(q.limit);
  if (q.session_id) query.where({ session_id: q.session_id });
  const rows = (await query) as TurnRow[];
  return rows.reverse().map((r) => ({ ...r, id: Number(r.id) }));
}

/** Retention (`retention.voice_turns_days`, docs/retention.md): deletes at most `limit` turns said before the cutoff. */
export function pruneTurnsBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, TABLE, `"at" < ?`, [cutoffIso], limit);
}
