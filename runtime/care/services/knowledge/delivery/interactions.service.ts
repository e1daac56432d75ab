/**
 * `/knowledge-interactions/*` (what was shown to the senior and how it went) and
 * `/knowledge/analytics/tags`: read-only views over this module's tables, filtered by the
 * household's local day (`date`, `YYYY-MM-DD` in `app.timezone`).
 */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { firstInstantOf } from "../../../../platform/core/zoned-time";
import { documentTags } from "../documents/document-tags.read";
import { quizForDelivery } from "../quizzes/quiz-delivery.read";
import { quizTags } from "../quizzes/quiz-tags.read";
import { listDeliveries, type DeliveryRow } from "./card-deliveries.store";
import { completedScores, listSessions, responsesOf, sessionById, type ResponseRow, type SessionRow, type SessionStatus } from "./quiz-sessions.store";
import { scoreOf } from "./quiz-view";

/** The instants a local day spans, [from, to). */
export function localDay(date: string, timeZone: string): { from: string; to: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const wall = m ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), hour: 0, minute: 0, second: 0 } : null;
  if (!wall || wall.month < 1 || wall.month > 12 || wall.day < 1 || wall.day > 31) throw new ValidationError("date: YYYY-MM-DD");
  const from = firstInstantOf(wall, timeZone);
  const next = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + 1));
  const to = firstInstantOf({ ...wall, year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() }, timeZone);
  return { from: isoAt(from), to: isoAt(to) };
}

export type SessionListItem = SessionRow & { score: number; quiz_title: string | null };

async function withTitle(ctx: CareContext, rows: SessionRow[]): Promise<SessionListItem[]> {
  const titles = new Map<number, string | null>();
  for (const id of new Set(rows.map((r) => r.quiz_id))) titles.set(id, (await quizForDelivery(ctx.db, id))?.title ?? null);
  return rows.map((r) => ({ ...r, score: scoreOf(r.correct_count, r.question_count), quiz_title: titles.get(r.quiz_id) ?? null }));
}

export async function listQuizSessions(
  ctx: CareContext,
  q: { date?: string; status?: SessionStatus; limit: number; offset: number },
): Promise<SessionListItem[]> {
  const day = q.date ? localDay(q.date, ctx.settings.app.timezone) : {};
  return withTitle(ctx, await listSessions(ctx.db, { ...day, status: q.status, limit: q.limit, offset: q.offset }));
}

export async function quizSessionDetail(ctx: CareContext, id: number): Promise<SessionListItem & { responses: ResponseRow[] }> {
  const s = await sessionById(ctx.db, id);
  if (!s) throw new NotFoundError(`Quiz session ${id} not found`);
  const [item] = await withTitle(ctx, [s]);
  return { ...item, responses: await responsesOf(ctx.db, id) };
}

export async function listCardDeliveries(ctx: CareContext, q: { date?: string; limit: number; offset: number }): Promise<DeliveryRow[]> {
  const day = q.date ? localDay(q.date, ctx.settings.app.timezone) : {};
  return listDeliveries(ctx.db, { ...day, limit: q.limit, offset: q.offset });
}

export interface TagStats {
  tag: string;
  document_count: number;
  quiz_count: number;
  /** Mean score (0–100) of the completed sessions of this tag's quizzes; null when none was completed. */
  average_score: number | null;
  completed_sessions: number;
}

export async function tagAnalytics(ctx: CareContext): Promise<TagStats[]> {
  const stats = new Map<string, TagStats>();
  const entry = (tag: string): TagStats => {
    let s = stats.get(tag);
    if (!s) stats.set(tag, (s = { tag, document_count: 0, quiz_count: 0, average_score: null, completed_sessions: 0 }));
    return s;
  };
  for (const d of await documentTags(ctx.db)) for (const t of new Set(d.tags)) entry(t).document_count++;
  const quizzes = await quizTags(ctx.db);
  for (const q of quizzes) for (const t of new Set(q.tags)) entry(t).quiz_count++;
  const tagsOf = new Map(quizzes.map((q) => [q.id, [...new Set(q.tags)]]));
  const sums = new Map<string, number>();
  for (const s of await completedScores(ctx.db)) {
    for (const t of tagsOf.get(s.quiz_id) ?? []) {
      entry(t).completed_sessions++;
      sums.set(t, (sums.get(t) ?? 0) + scoreOf(s.correct_count, s.question_count));
    }
  }
  for (const s of stats.values()) if (s.completed_sessions > 0) s.average_score = Math.round((sums.get(s.tag)! / s.completed_sessions) * 10) / 10;
  return [...stats.values()].sort((a, b) => a.tag.localeCompare(b.tag));
}
