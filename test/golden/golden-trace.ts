/**
 * The golden trace: what each example rule did on the recorded day, reduced to what a change of
 * behaviour changes (when each run started, how it ended, which steps ran and through which
 * ports, what it would have sent and said) and nothing that changes by itself (ids, elapsed
 * times, step start times within a run). Compared rule by rule, run by run, so a diff names the
 * rule and its first run that differs.
 */
import { isDeepStrictEqual } from "node:util";

export interface GoldenStep {
  label: string;
  step_type: string;
  status: string;
  output_ports: string[];
  error?: string;
}

export interface GoldenSend {
  kind: string;
  target: string;
  text: string;
  alert_level?: string;
}

export interface GoldenRun {
  started_at: string;
  status: string;
  error: string | null;
  steps: GoldenStep[];
  would_send: GoldenSend[];
}

export interface GoldenRule {
  rule: string;
  inputs_replayed: number;
  runs: GoldenRun[];
  not_rehearsed: Array<{ service: string; reason: string }>;
  warnings: string[];
}

export interface GoldenTrace {
  note: string;
  from: string;
  to: string;
  rules: GoldenRule[];
}

/** The rehearsal's answer as the API gives it (the fields the trace keeps). */
export interface RehearsalAnswerBody {
  rule_name: string;
  inputs_replayed: number;
  rehearsed: Array<{
    started_at: string;
    status: string;
    error: string | null;
    steps: Array<{ label: string; step_type: string; status: string; output_ports: string[]; error?: string }>;
    would_send?: Array<{ kind: string; target: string; text: string; alert_level?: string }>;
  }>;
  not_rehearsed: Array<{ service: string; reason: string }>;
  warnings: string[];
}

export function goldenRule(a: RehearsalAnswerBody): GoldenRule {
  return {
    rule: a.rule_name,
    inputs_replayed: a.inputs_replayed,
    runs: a.rehearsed.map((r) => ({
      started_at: r.started_at,
      status: r.status,
      error: r.error,
      steps: r.steps.map((s) => ({
        label: s.label,
        step_type: s.step_type,
        status: s.status,
        output_ports: s.output_ports,
        ...(s.error ? { error: s.error } : {}),
      })),
      would_send: (r.would_send ?? []).map((w) => ({ kind: w.kind, target: w.target, text: w.text, ...(w.alert_level ? { alert_level: w.alert_level } : {}) })),
    })),
    not_rehearsed: a.not_rehearsed.map((n) => ({ service: n.service, reason: n.reason })),
    warnings: a.warnings,
  };
}

const show = (v: unknown): string => (v === undefined ? "(none)" : JSON.stringify(v));

/** A run in a few lines: when and how it ended, its steps with their ports, what it would have sent. */
function describeRun(r: GoldenRun | undefined): string {
  if (!r) return "(no such run)";
  const lines = [`${r.started_at} ${r.status}${r.error ? ` (${r.error})` : ""}`];
  for (const s of r.steps)
    lines.push(`  step '${s.label}' (${s.step_type}) ${s.status} -> ${s.output_ports.join(", ") || "(no port)"}${s.error ? `: ${s.error}` : ""}`);
  for (const w of r.would_send) lines.push(`  would send ${w.kind} ${w.target}${w.alert_level ? ` [${w.alert_level}]` : ""}: ${JSON.stringify(w.text)}`);
  return lines.join("\n    ");
}

/** Where the recorded trace and this one part, in words; null when they agree. */
export function traceDifference(expected: GoldenTrace, actual: GoldenTrace): string | null {
  const problems: string[] = [];
  const names = [...new Set([...expected.rules.map((r) => r.rule), ...actual.rules.map((r) => r.rule)])];
  for (const name of names) {
    const e = expected.rules.find((r) => r.rule === name);
    const a = actual.rules.find((r) => r.rule === name);
    if (!e || !a) {
      problems.push(`rule '${name}': ${e ? "no longer rehearsed" : "not in the golden trace"}`);
      continue;
    }
    if (isDeepStrictEqual(e, a)) continue;
    const runs = Math.max(e.runs.length, a.runs.length);
    const i = Array.from({ length: runs }, (_, k) => k).find((k) => !isDeepStrictEqual(e.runs[k], a.runs[k]));
    if (i !== undefined) {
      problems.push(
        `rule '${name}': ${a.runs.length} runs (golden: ${e.runs.length}); run ${i + 1} differs first\n` +
          `  golden:\n    ${describeRun(e.runs[i])}\n  now:\n    ${describeRun(a.runs[i])}`,
      );
      continue;
    }
    for (const key of ["inputs_replayed", "not_rehearsed", "warnings"] as const)
      if (!isDeepStrictEqual(e[key], a[key])) problems.push(`rule '${name}': ${key} differs\n  golden: ${show(e[key])}\n  now:    ${show(a[key])}`);
  }
  return problems.length ? problems.join("\n\n") : null;
}
