/**
 * A run's steps in sentences, as a caregiver reads them first in the editor's run details
 * (issue 45): "Sent to the family chat at 07:00: “Time for your medicine”", "Asked Rose “Are
 * you okay?” and waited up to 30 s: Rose tapped “I'm okay”". The raw record (ports,
 * milliseconds, JSON) stays behind the page's "details" toggle; this only words it.
 */
import { channelWords } from "../../language/channel-names";
import { hhmm, localParts } from "../../../../household/tracking/local-time";
import { stepSpecByType } from "../../rules/care-types";
import type { StepRecord } from "../engine/run-state";

/** What a sentence is made from: the step as the graph has it and as the run recorded it. */
export interface SentenceStep {
  step_type: string;
  label: string;
  config: Record<string, unknown>;
  /** Undefined: the step did not run (skipped or not reached yet). */
  record?: StepRecord;
}

export interface SentenceContext {
  /** The run's pipeline_data, where steps wrote their answers. */
  data: Record<string, unknown>;
  /** IANA zone the household reads times in (`app.timezone`). */
  timezone: string;
  /** The senior's name ("Rose"), or "the senior" when the household has several people. */
  senior: string;
  /** When a waiting run resumes (ISO), for the step it waits in. */
  resume_at?: string | null;
  /** The run has ended: a step without a record was skipped, not pending. */
  ended: boolean;
}

type Worder = (s: SentenceStep & { record: StepRecord }, c: SentenceContext) => string;

const quote = (text: string): string => `“${text.trim()}”`;
const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** "07:00" in the household's zone. */
function at(iso: string | null | undefined, zone: string): string {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? "" : hhmm(localParts(ms, zone));
}

/** "5 min", "1 h 30 min", "45 s". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return minutes % 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes / 60} h`;
}

/** "the family chat", "the family chat and the tablet popup", "a, b and c". */
function listed(channels: readonly string[]): string {
  const words = channels.map((c) => `the ${channelWords(c)}`);
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

const notification: Worder = (s, c) => {
  const rec = s.record;
  const message = str(rec.trace?.message);
  const text = message ? `: ${quote(message.split("\n—\n")[0])}` : "";
  const receipts = rec.receipts;
  if (!receipts) return "Not sent: an earlier step said no notification was needed";
  if (!receipts.length) return `Sent to nobody at ${at(rec.started_at, c.timezone)}: no channel was set up for it${text}`;
  const sent = receipts.filter((r) => r.delivered).map((r) => r.channel);
  const failed = receipts.filter((r) => !r.delivered);
  const why = failed.map((r) => `the ${channelWords(r.channel)} could not (${r.detail ?? "not delivered"})`).join("; ");
  if (!sent.length) return `Tried to send at ${at(rec.started_at, c.timezone)}${text}, but it reached nobody: ${why}`;
  // Carried by the fallback: every channel of its own failed (runtime/care/services/notify/fallback.ts).
  const instead = receipts.some((r) => r.fallback && r.delivered) ? " instead" : "";
  return `Sent to ${listed(sent)}${instead} at ${at(rec.started_at, c.timezone)}${text}${failed.length ? `; ${why}` : ""}`;
};

const wait: Worder = (s, c) => {
  const minutes = Number(s.config.duration_minutes ?? s.config.minutes ?? 5);
  const length = duration(minutes * 60);
  if (s.record.status === "waiting") return `Waiting ${length}${c.resume_at ? `, until ${at(c.resume_at, c.timezone)}` : ""}`;
  return `Waited ${length}`;
};

const prompt: Worder = (s, c) => {
  const cfg = s.config;
  const question = str(cfg.popup_message_template) ?? str(cfg.voice_prompt_template) ?? "Are you okay?";
  const countdown = duration(Number(cfg.countdown_seconds ?? 30));
  const asked = `Asked ${c.senior} ${quote(question)}`;
  if (s.record.status === "waiting") return `${asked}: waiting up to ${countdown} for an answer`;
  const answer = obj(c.data[str(cfg.output_key) ?? "interactive_response"]);
  const button = answer.action === "escalate" ? (str(cfg.escalate_button_text) ?? "I need help") : (str(cfg.dismiss_button_text) ?? "I'm okay");
  if (answer.channel === "timeout") return `${asked} and waited ${countdown}: no answer, so it counted as ${quote(button)}`;
  if (answer.channel === "pwa_realtime_ai") return `${asked} and waited up to ${countdown}: ${c.senior} answered by voice, ${quote(button)}`;
  if (answer.action) return `${asked} and waited up to ${countdown}: ${c.senior} tapped ${quote(button)}`;
  return `${asked} and waited up to ${countdown}`;
};

const condition: Worder = (s) => {
  const expression = str(s.config.expression) ?? "the condition";
  const port = s.record.output_ports[0];
  return `Checked ${quote(expression)}: ${port === "true" ? "yes" : port === "false" ? "no" : "no answer"}`;
};

const verification: Worder = (s, c) => {
  const v = obj(c.data.verification);
  const conditions = Array.isArray(s.config.conditions) ? s.config.conditions.map(obj) : [];
  const what = conditions
    .map((k) => `${k.completed === false ? "no " : ""}${String(k.activity_type ?? "activity").replace(/_/g, " ")}`)
    .join(v.match_mode === "any" ? " or " : " and ");
  const checked = `Looked in the activity log for ${what || "the expected activities"}`;
  if (typeof v.verified !== "boolean") return checked;
  return `${checked}: ${v.verified ? "found" : "not found"}`;
};

const WORDERS: Record<string, Worder> = { notification, wait, interactive_prompt: prompt, condition, verification };

/** Any other step: its type's name and how it ended. */
const generic: Worder = (s) => {
  const name = stepSpecByType(s.step_type)?.displayName ?? s.step_type;
  return s.record.status === "waiting" ? `${name}: waiting` : `${name}: done`;
};

/** One step of a run in a sentence. */
export function stepSentence(s: SentenceStep, c: SentenceContext): string {
  const rec = s.record;
  const name = stepSpecByType(s.step_type)?.displayName ?? s.step_type;
  if (!rec) return c.ended ? `${name}: not reached in this run` : `${name}: not reached yet`;
  if (rec.status === "failed") return `${name} failed: ${rec.error ?? "an error"}`;
  if (rec.status === "running") return `${name}: under way`;
  if (rec.status === "interrupted") return `${name}: cut short by a restart`;
  const said = (WORDERS[s.step_type] ?? generic)({ ...s, record: rec }, c);
  // A notification's warning is its receipts, which its sentence already says; any other is added once.
  return rec.warning && s.step_type !== "notification" ? `${said}; needs a look: ${rec.warning}` : said;
}
