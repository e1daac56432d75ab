/**
 * Sends the family's daily health message (issue 44 §3) at `health.daily_report_at` in
 * `app.timezone`: a timer on the app's clock at the next local occurrence of that time (from the
 * local date, so a day of 23 or 25 hours moves nothing; a time the clocks skip goes out when the
 * gap ends), re-armed for the next day when it fires. The local date it went out for is stored
 * before the sends, so a restart that day never sends it twice. A careflow that was down at the
 * time and comes back the same day sends it then, saying it is late; a store that never sent one
 * (a first start) waits for the next time. With several instances it runs on the one holding
 * the lease `daily-health-report`.
 */
import { SerialWork } from "../../../platform/core/serial-work";
import type { CareContext } from "../../core/context";
import type { ChatLink } from "../chat/chat.service";
import { isoNow } from "../../../platform/core/clock";
import { firstInstantOf } from "../../../platform/core/zoned-time";
import { leasesOf } from "../../../platform/cluster/cluster";
import { whileHolding } from "../../../platform/cluster/leases";
import { addDays, dateText, localDateOf, type LocalDate } from "../reports/local-day";
import { gatherHealthFacts } from "./report-facts";
import { composeHealthReport } from "./report-text";
import { lastReportDate, setLastReportDate, setLastReportOutcome, wantsDailyReport, type DailyReportOutcome } from "./report-prefs";
import { chatTargets } from "../chat/relatives.service";

export interface DailyHealthJob {
  /** Resolves when the sends started so far are done (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The instant the clocks of `timeZone` read `hhmm` on a local date (a skipped time: the gap's end). */
export function dueOnDate(hhmm: string, timeZone: string, date: LocalDate): number {
  const [hour, minute] = hhmm.split(":").map(Number) as [number, number];
  return firstInstantOf({ ...date, hour, minute, second: 0 }, timeZone);
}

/** The first time after `ms` that the clocks of `timeZone` read `hhmm`. */
export function nextDueAfter(hhmm: string, timeZone: string, ms: number): number {
  const today = localDateOf(ms, timeZone);
  const due = dueOnDate(hhmm, timeZone, today);
  return due > ms ? due : dueOnDate(hhmm, timeZone, addDays(today, 1));
}

const dueOn = (ctx: CareContext, date: LocalDate): number => dueOnDate(ctx.settings.health.daily_report_at, ctx.settings.app.timezone, date);

/** Today's message to every target's chat that wants it, unless it went out already; `late`: sent after its time. */
async function sendDailyReport(ctx: CareContext, chat: ChatLink, now: number, late: boolean): Promise<void> {
  // Nobody to tell: nothing to gather or keep (a clock moved over a year fires every day).
  const targets = await chatTargets(ctx);
  if (targets.length === 0) return;
  const date = dateText(localDateOf(now, ctx.settings.app.timezone));
  if ((await lastReportDate(ctx)) === date) return;
  // Kept first: a crash in the middle of the sends must not send them all again.
  await setLastReportDate(ctx, date);
  const facts = await gatherHealthFacts(ctx, now);
  const dated = late ? { ...facts, dueAt: ctx.settings.health.daily_report_at } : facts;
  // The same facts for every chat, each in its own language.
  const texts = new Map<string, string>();
  const textIn = (language: string): string => {
    if (!texts.has(language)) texts.set(language, composeHealthReport(dated, language, ctx.settings.app.language));
    return texts.get(language)!;
  };
  const results: DailyReportOutcome["results"] = [];
  for (const target of targets) {
    if (!(await wantsDailyReport(ctx, target.chat_id))) continue;
    const sent = await chat.sendText(target.chat_id, textIn(target.language));
    results.push({ target: target.name, delivered: sent.ok, detail: sent.ok ? `message ${sent.value}` : sent.reason });
    if (!sent.ok) ctx.log.warn({ target: target.name, reason: sent.reason, date }, "daily health message not delivered");
  }
  await setLastReportOutcome(ctx, { date, sent_at: isoNow(ctx.clock), results });
  ctx.log.info({ date, sent: results.filter((r) => r.delivered).length, failed: results.filter((r) => !r.delivered).length }, "daily health message sent");
}

/** The daily message's timer, on the one instance holding its lease. */
export function startDailyHealthReport(ctx: CareContext, chat: ChatLink): DailyHealthJob {
  let job: DailyHealthJob | null = null;
  const stop = whileHolding(leasesOf(ctx), "daily-health-report", () => {
    const mine = dailyTimer(ctx, chat);
    job = mine;
    return () => {
      if (job === mine) job = null;
      return mine.stop();
    };
  });
  return { idle: async () => job?.idle(), stop };
}

function dailyTimer(ctx: CareContext, chat: ChatLink): DailyHealthJob {
  let stopped = false;
  let cancel: (() => void) | undefined;
  const work = new SerialWork((err: unknown) => ctx.log.error({ err }, "daily health message failed"));
  const enqueue = (piece: () => Promise<void>): void => work.add(piece);
  const armAfter = (fromMs: number): void => {
    if (stopped) return;
    const at = nextDueAfter(ctx.settings.health.daily_report_at, ctx.settings.app.timezone, fromMs);
    // The family's sign of life from careflow, like the parts' sampling a heartbeat of its own:
    // background, so a test counting a component's pending timers does not count it.
    cancel = ctx.clock.at(
      at,
      () => {
        // Re-armed first, so a clock that jumps several days fires each day once.
        armAfter(at);
        enqueue(() => sendDailyReport(ctx, chat, at, false));
      },
      { background: true },
    );
  };

  const now = ctx.clock.now();
  // Down at the time today and back now: today's goes out at once (never on a store's first start).
  enqueue(async () => {
    const last = await lastReportDate(ctx);
    const today = localDateOf(now, ctx.settings.app.timezone);
    if (last !== null && last < dateText(today) && now >= dueOn(ctx, today)) await sendDailyReport(ctx, chat, now, now > dueOn(ctx, today));
  });
  armAfter(now);

  return {
    idle: () => work.idle(),
    stop: async () => {
      stopped = true;
      cancel?.();
      await work.idle();
    },
  };
}
