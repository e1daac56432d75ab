/**
 * What the daily health message keeps in the store (`kv`): each chat's choice (`/daily on|off`,
 * on unless turned off), the local date it last went out (so a restart never sends a day's
 * twice), and how the last one went, per chat (shown with the parts' health).
 */
import type { PlatformContext } from "../../../platform/context";
import { isoNow } from "../../../platform/core/clock";
import { kvGet, kvSet } from "../../../platform/db/kv";
import { fromJsonText } from "../../../platform/db/json-column";

const choiceKey = (chatId: string | number) => `health.daily_report.chat:${String(chatId)}`;
const LAST_DATE = "health.daily_report.last_date";
const LAST_OUTCOME = "health.daily_report.last";

export interface DailyReportOutcome {
  /** The local date it was for (YYYY-MM-DD). */
  date: string;
  sent_at: string;
  results: Array<{ target: string; delivered: boolean; detail: string }>;
}

/** On unless this chat said `/daily off`: the message is the family's dead-man's switch. */
export async function wantsDailyReport(ctx: PlatformContext, chatId: string | number): Promise<boolean> {
  return (await kvGet(ctx.db, choiceKey(chatId))) !== "off";
}

export const setWantsDailyReport = (ctx: PlatformContext, chatId: string | number, on: boolean): Promise<void> =>
  kvSet(ctx.db, choiceKey(chatId), on ? "on" : "off", isoNow(ctx.clock));

export async function lastReportDate(ctx: PlatformContext): Promise<string | null> {
  return (await kvGet(ctx.db, LAST_DATE)) ?? null;
}

export const setLastReportDate = (ctx: PlatformContext, date: string): Promise<void> => kvSet(ctx.db, LAST_DATE, date, isoNow(ctx.clock));

export async function lastReportOutcome(ctx: PlatformContext): Promise<DailyReportOutcome | null> {
  return fromJsonText<DailyReportOutcome | null>((await kvGet(ctx.db, LAST_OUTCOME)) ?? null, null);
}

export const setLastReportOutcome = (ctx: PlatformContext, outcome: DailyReportOutcome): Promise<void> =>
  kvSet(ctx.db, LAST_OUTCOME, JSON.stringify(outcome), isoNow(ctx.clock));
