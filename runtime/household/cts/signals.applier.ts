/**
 * `tracking.signals`: every signal is stored; it fires `dementia_signal` rules (through the
 * bus, once committed) only when its person's alert profile enables its kind at its severity.
 * A signal re-sent with the same `signal_id` at equal or lower severity changes nothing that
 * alerts; raised, it alerts again. Signals with an UNSPECIFIED kind or severity or without an
 * identity are dropped, as the original did.
 */
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import { isoAt, isoNow } from "../../platform/core/clock";
import { loadAlertProfiles, profileAllows } from "../tracking/signal-profiles";
import { upsertSignal, type IncomingSignal } from "../tracking/signals.store";
import { enumName, type AfterCommit, type Applier } from "./applier";
import { decodeSignal, nsToMs } from "./cts-codec";
import type { DecodedSignal } from "./cts-messages";

interface Plan {
  signal: IncomingSignal;
  alerts: boolean;
}

const kindOf = (s: DecodedSignal) => enumName(s.kind, "DEMENTIA_SIGNAL_KIND_");
const severityOf = (s: DecodedSignal) => enumName(s.severity, "DEMENTIA_SIGNAL_SEVERITY_");

export class SignalsApplier implements Applier<DecodedSignal, Plan> {
  constructor(private readonly ctx: PlatformContext) {}

  decode = decodeSignal;

  /** A re-sent signal at the same severity is the same message; a raised one is not. */
  key(s: DecodedSignal): string {
    return `${s.signal_id}@${severityOf(s)}`;
  }

  check(s: DecodedSignal): string | null {
    if (!s.signal_id) return "signal without a signal_id";
    if (!s.identity_id.trim()) return `signal ${s.signal_id} without an identity_id`;
    if (!kindOf(s)) return `signal ${s.signal_id} of an unspecified or unknown kind (${String(s.kind)})`;
    if (!severityOf(s)) return `signal ${s.signal_id} of an unspecified or unknown severity (${String(s.severity)})`;
    return null;
  }

  async plan(s: DecodedSignal): Promise<Plan> {
    const kind = kindOf(s) as string;
    const severity = severityOf(s) as string;
    const profiles = await loadAlertProfiles(this.ctx.db, [s.identity_id]);
    return { signal: incoming(s, kind, severity), alerts: profileAllows(profiles.get(s.identity_id), kind, severity) };
  }

  async commit(trx: Knex, p: Plan): Promise<AfterCommit[]> {
    const outcome = await upsertSignal(trx, p.signal, isoNow(this.ctx.clock), p.alerts);
    if (outcome === "repeat" || !p.alerts) return [];
    return [() => this.ctx.bus.publish("cts.signal", { signal_id: p.signal.signal_id })];
  }
}

function incoming(s: DecodedSignal, kind: string, severity: string): IncomingSignal {
  const start = nsToMs(s.window_start_unix_ns);
  const end = nsToMs(s.window_end_unix_ns);
  const details: Record<string, unknown> = {
    value: s.value,
    ...(s.has_baseline ? { baseline: s.baseline } : {}),
    ...(s.has_z_score ? { z_score: s.z_score } : {}),
    window_start: start === null ? null : isoAt(start),
    window_end: end === null ? null : isoAt(end),
    // What templates name: `signal.details.minutes`, the window's length.
    minutes: start !== null && end !== null && end >= start ? Math.round((end - start) / 60_000) : null,
    emitted_at: nsToMs(s.emitted_at_unix_ns) === null ? null : isoAt(nsToMs(s.emitted_at_unix_ns) as number),
    context: parseContext(s.context_json),
    algorithm_name: s.algorithm_name || null,
    algorithm_version: s.algorithm_version,
    evidence_grade: s.evidence_grade || null,
  };
  return {
    signal_id: s.signal_id,
    person_id: s.identity_id.trim(),
    kind,
    severity,
    value: Number.isFinite(s.value) ? s.value : null,
    details,
    started_at: start === null ? null : isoAt(start),
  };
}

function parseContext(json: string): Record<string, unknown> {
  if (!json) return {};
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { unparsed: json.slice(0, 2000) };
  }
}
