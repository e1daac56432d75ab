/** The `quiz_sessions` and `quiz_responses` tables: one session per quiz put to the senior, one response per question answered. */
import type { Knex } from "knex";
import { toBool } from "../../../../platform/db/json-column";

export const SESSION_STATUSES = ["started", "in_progress", "completed", "abandoned", "timed_out"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const OPEN_STATUSES: readonly SessionStatus[] = ["started", "in_progress"];
export const ENDED_STATUSES: readonly SessionStatus[] = ["completed", "abandoned", "timed_out"];

export interface SessionRow {
  id: number;
  quiz_id: number;
  rule_id: number | null;
  execution_id: number | null;
  step_id: number | null;
  senior_id: string | null;
  status: SessionStatus;
  current_question_ord: number;
  correct_count: number;
  answered_count: number;
  question_count: number;
  started_at: string;
  last_activity_at: string;
  expires_at: string | null;
  completed_at: string | null;
}

export interface ResponseRow {
  id: number;
  session_id: number;
  question_id: number;
  question_ord: number;
  question_text: string;
  chosen_choice_id: string | null;
  chosen_choice_text: string | null;
  open_ended_text: string | null;
  is_correct: boolean | null;
  channel: string;
  answered_at: string;
  latency_ms: number | null;
}

const SESSIONS = "quiz_sessions";
const RESPONSES = "quiz_responses";

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const sessionOf = (r: Record<string, unknown>): SessionRow => ({
  ...(r as unknown as SessionRow),
  id: Number(r.id),
  quiz_id: Number(r.quiz_id),
  rule_id: num(r.rule_id),
  execution_id: num(r.execution_id),
  step_id: num(r.step_id),
  current_question_ord: Number(r.current_question_ord),
  correct_count: Number(r.correct_count),
  answered_count: Number(r.answered_count),
  question_count: Number(r.question_count),
});
const responseOf = (r: Record<string, unknown>): ResponseRow => ({
  ...(r as unknown as ResponseRow),
  id: Number(r.id),
  session_id: Number(r.session_id),
  question_id: Number(r.question_id),
  question_ord: Number(r.question_ord),
  is_correct: r.is_correct === null || r.is_correct === undefined ? null : toBool(r.is_correct),
  latency_ms: num(r.latency_ms),
});

export type NewSession = Omit<SessionRow, "id" | "completed_at" | "correct_count" | "answered_count">;

export async function insertSession(db: Knex, s: NewSession): Promise<SessionRow> {
  const [row] = await db(SESSIONS)
    .insert({ ...s, correct_count: 0, answered_count: 0, completed_at: null })
    .returning("id");
  const id = typeof row === "object" ? Number((row as { id: number }).id) : Number(row);
  return (await sessionById(db, id))!;
}

export async function sessionById(db: Knex | Knex.Transaction, id: number): Promise<SessionRow | undefined> {
  const row = await db(SESSIONS).where({ id }).first();
  return row ? sessionOf(row) : undefined;
}

/** Sessions not ended yet, oldest first (the tablet's replay, the timeout watch). */
export async function openSessions(db: Knex): Promise<SessionRow[]> {
  const rows = await db(SESSIONS)
    .whereIn("status", OPEN_STATUSES as SessionStatus[])
    .orderBy([{ column: "started_at" }, { column: "id" }]);
  return rows.map(sessionOf);
}

/** The newest session of this quiz for this senior (null: the household) started at or after `sinceIso`. */
export async function recentSession(db: Knex, quizId: number, seniorId: string | null, sinceIso: string): Promise<SessionRow | undefined> {
  const q = db(SESSIONS).where({ quiz_id: quizId }).where("started_at", ">=", sinceIso);
  if (seniorId === null) q.whereNull("senior_id");
  else q.where({ senior_id: seniorId });
  const row = await q
    .orderBy([
      { column: "started_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .first();
  return row ? sessionOf(row) : undefined;
}

/** Open sessions of a senior (null: the household). */
export async function openSessionsOf(db: Knex, seniorId: string | null): Promise<SessionRow[]> {
  const q = db(SESSIONS).whereIn("status", OPEN_STATUSES as SessionStatus[]);
  if (seniorId === null) q.whereNull("senior_id");
  else q.where({ senior_id: seniorId });
  return (await q).map(sessionOf);
}

/**
 * Ends an open session; false when it had ended already (whoever ended it first wins: an
 * answer completing it, the countdown, an abandon).
 */
export async function endSession(db: Knex, id: number, status: SessionStatus, atIso: string): Promise<boolean> {
  const n = await db(SESSIONS)
    .where({ id })
    .whereIn("status", OPEN_STATUSES as SessionStatus[])
    .update({ status, completed_at: atIso, last_activity_at: atIso });
  return Number(n) === 1;
}

export async function responsesOf(db: Knex | Knex.Transaction, sessionId: number): Promise<ResponseRow[]> {
  const rows = await db(RESPONSES)
    .where({ session_id: sessionId })
    .orderBy([{ column: "question_ord" }, { column: "id" }]);
  return rows.map(responseOf);
}

export type NewResponse = Omit<ResponseRow, "id">;

/**
 * Records an answer and moves the session to the next question in one transaction; false
 * when this question of the session was answered already or the session has moved on (a
 * second tap, the same answer by voice and screen at once).
 */
export async function recordAnswer(db: Knex, r: NewResponse, next: { current_question_ord: number; expectedOrd: number }): Promise<boolean> {
  return db.transaction(async (trx) => {
    const moved = await trx(SESSIONS)
      .where({ id: r.session_id, current_question_ord: next.expectedOrd })
      .whereIn("status", OPEN_STATUSES as SessionStatus[])
      .update({
        status: "in_progress",
        current_question_ord: next.current_question_ord,
        answered_count: trx.raw("answered_count + 1"),
        correct_count: r.is_correct ? trx.raw("correct_count + 1") : trx.raw("correct_count"),
        last_activity_at: r.answered_at,
      });
    if (Number(moved) !== 1) return false;
    await trx(RESPONSES).insert(r);
    return true;
  });
}

export interface SessionQuery {
  from?: string;
  to?: string;
  status?: SessionStatus;
  limit: number;
  offset: number;
}

/** Newest first. */
export async function listSessions(db: Knex, q: SessionQuery): Promise<SessionRow[]> {
  const query = db(SESSIONS);
  if (q.from) query.where("started_at", ">=", q.from);
  if (q.to) query.where("started_at", "<", q.to);
  if (q.status) query.where({ status: q.status });
  const rows = await query
    .orderBy([
      { column: "started_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .limit(q.limit)
    .offset(q.offset);
  return rows.map(sessionOf);
}

/** Average percentage score of completed sessions per quiz. */
export async function completedScores(db: Knex): Promise<Array<{ quiz_id: number; correct_count: number; question_count: number }>> {
  const rows = await db(SESSIONS).where({ status: "completed" }).select("quiz_id", "correct_count", "question_count");
  return rows.map((r: Record<string, unknown>) => ({
    quiz_id: Number(r.quiz_id),
    correct_count: Number(r.correct_count),
    question_count: Number(r.question_count),
  }));
}

/**
 * Retention (`retention.knowledge_deliveries_days`, docs/retention.md): deletes at most `limit`
 * ended sessions that ended before the cutoff, with their answers; an open session stays.
 */
export async function pruneEndedSessionsBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return db.transaction(async (trx) => {
    const ids = (
      await trx(SESSIONS)
        .whereIn("status", ENDED_STATUSES as SessionStatus[])
        .whereNotNull("completed_at")
        .where("completed_at", "<", cutoffIso)
        .select("id")
        .limit(limit)
    ).map((r: { id: number | string }) => Number(r.id));
    if (ids.length === 0) return 0;
    await trx(RESPONSES).whereIn("session_id", ids).delete();
    const n: number = await trx(SESSIONS).whereIn("id", ids).delete();
    return n;
  });
}
