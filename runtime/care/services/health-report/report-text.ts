/**
 * The family's daily health message (issue 44 §3), from facts to one short text in words a
 * family reads: which parts answered in the last day, how many rules ran, the alerts and who
 * acknowledged them, what is late. No ids, paths or states' code names. Pure: the facts carry
 * the time and the zone; the words are the chat's language's (issue 49), the catalogs' `report.*`.
 */
import type { PartView } from "../../../platform/health/parts-board";
import { localParts } from "../../../platform/core/zoned-time";
import { wordsIn, type Words } from "../../../platform/i18n/catalogs";

export const WINDOW_HOURS = 24;
const WINDOW_MS = WINDOW_HOURS * 3_600_000;

export interface AlertFact {
  /** What the alert said (its description). */
  what: string;
  /** Who acknowledged it first and when (ISO); null: nobody yet. */
  acknowledged: { by: string; at: string } | null;
}

export interface HealthFacts {
  /** The one person who lives there ("Rose's home"); null: several, or none ("home"). */
  resident: string | null;
  /** The instant the message describes (its window is the 24 hours before). */
  now: number;
  timeZone: string;
  parts: readonly PartView[];
  runs: { total: number; failed: number };
  alerts: readonly AlertFact[];
  /** Set when the message goes out after its time: the time it was due ("09:00"). */
  dueAt?: string;
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * "07:40" within the last day; "Nov 28 07:40" before it, the month in `language`'s words (the
 * chat's 24-hour clock is the same in every language: the family reads it beside the alert's).
 */
export function clockText(iso: string, now: number, timeZone: string, language = "en"): string {
  const ms = Date.parse(iso);
  const p = localParts(ms, timeZone);
  const hhmm = `${pad(p.hour)}:${pad(p.minute)}`;
  if (now - ms < WINDOW_MS) return hhmm;
  return `${new Intl.DateTimeFormat(language, { day: "numeric", month: "short", timeZone }).format(ms)} ${hhmm}`;
}

/** A part's name as a family says it: "hall display", not "hall_display". */
const partLabel = (p: PartView): string => p.name.replace(/_/g, " ").trim();

/** Heard from within the window. */
const answered = (p: PartView, now: number): boolean => p.last_seen !== null && now - Date.parse(p.last_seen) <= WINDOW_MS;

/** Why a part that is not ok is mentioned: "nothing since 07:40", "disconnected since 08:10", a gauge's reading. */
function lateText(t: Words, p: PartView, f: HealthFacts, language: string): string {
  if (p.kind === "database" || p.kind === "disk" || p.kind === "event_loop") return p.detail ?? p.state;
  if (p.kind === "camera" || p.kind === "display" || p.kind === "terminal") {
    return p.last_seen ? t("report.nothing_since", { time: clockText(p.last_seen, f.now, f.timeZone, language) }) : t("report.never_heard");
  }
  return t("report.disconnected_since", { time: clockText(p.since, f.now, f.timeZone, language) });
}

function alertText(t: Words, a: AlertFact, f: HealthFacts, language: string): string {
  const firstLine = a.what.split("\n")[0]!.trim();
  const what = firstLine.length > 60 ? `${firstLine.slice(0, 59)}…` : firstLine;
  return a.acknowledged
    ? t("report.acknowledged", { what, name: a.acknowledged.by, time: clockText(a.acknowledged.at, f.now, f.timeZone, language) })
    : t("report.unacknowledged", { what });
}

/** The message in `language` (a BCP 47 tag; `household`: the language a tag without a catalog falls back to). */
export function composeHealthReport(f: HealthFacts, language = "en", household = "en"): string {
  const t = wordsIn(language, household);
  const late = f.parts.filter((p) => p.state !== "ok");
  const quiet = f.parts.filter((p) => p.state === "ok" && !answered(p, f.now));
  const open = f.alerts.filter((a) => !a.acknowledged);
  const well = late.length === 0 && quiet.length === 0 && open.length === 0 && f.runs.failed === 0;
  const home = f.resident === null ? t("report.home") : t("report.home_of", { name: f.resident });

  const parts =
    f.parts.length === 0
      ? t("report.no_parts")
      : t("report.parts_answered", { answered: f.parts.filter((p) => answered(p, f.now)).length, total: f.parts.length });
  const ran = t("report.runs", { count: f.runs.total });
  const runs = f.runs.total === 0 ? t("report.no_runs") : f.runs.failed ? `${ran}, ${t("report.runs_failed", { count: f.runs.failed })}` : ran;
  const alerts =
    f.alerts.length === 0
      ? t("report.no_alerts")
      : t("report.alerts", { count: f.alerts.length, list: f.alerts.map((a) => alertText(t, a, f, language)).join("; ") });

  const sentences = [t(well ? "report.well" : "report.look", { home, hours: WINDOW_HOURS, parts, runs, alerts })];
  if (late.length) sentences.push(t("report.late", { list: late.map((p) => `${partLabel(p)}, ${lateText(t, p, f, language)}`).join("; ") }));
  if (quiet.length) sentences.push(t("report.quiet", { list: quiet.map(partLabel).join(", ") }));
  if (f.dueAt) sentences.push(t("report.was_due", { time: f.dueAt }));
  return sentences.join(" ");
}
