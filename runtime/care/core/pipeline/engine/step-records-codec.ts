/**
 * Step records as a run's row stores them: one small array per step instead of an object
 * with named fields, the label and type left to the run's graph snapshot (which holds them
 * for every step it has), the start as milliseconds after the run's start. A run's records
 * are written with it at every group commit, so their size is paid on every busy run.
 *
 *   [step_id, start offset ms, elapsed ms, status code, output ports, error | null,
 *    label?, type?, warning?, receipts?, trace?, done?]   (label and type null when the snapshot has them)
 *
 * Rows written before this format hold objects; those are read as they are.
 */
import { isoAt } from "../../../../platform/core/clock";
import { stepById, type GraphSnapshot } from "./graph-snapshot";
import type { StepTrace } from "../../../../../nodes/_kit/handler-types";
import type { StepReceipt, StepRecord } from "./run-state";

type Stored = [
  number,
  number,
  number,
  number,
  string[],
  string | null,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (StepReceipt[] | null)?,
  (StepTrace | null)?,
  (string[] | null)?,
];

const CODES: ReadonlyArray<[StepRecord["status"], boolean]> = [
  ["failed", false],
  ["success", true],
  ["waiting", true],
  ["waiting", false],
  ["running", false],
  ["interrupted", false],
];
const codeOf = (r: StepRecord): number => {
  switch (r.status) {
    case "success":
      return 1;
    case "failed":
      return 0;
    case "waiting":
      return r.success ? 2 : 3;
    case "running":
      return 4;
    case "interrupted":
      return 5;
  }
};

export function encodeStepRecords(records: readonly StepRecord[], graph: GraphSnapshot, startedMs: number): string {
  const out: Stored[] = records.map((r) => {
    const row: Stored = [r.step_id, Date.parse(r.started_at) - startedMs, r.elapsed_ms, codeOf(r), r.output_ports, r.error ?? null];
    const known = stepById(graph, r.step_id);
    const ownNames = !known || known.label !== r.label || known.step_type !== r.step_type;
    // Trailing slots only as far as they are used: most steps stop at the error.
    const tail: unknown[] = [ownNames ? r.label : null, ownNames ? r.step_type : null, r.warning ?? null, r.receipts ?? null, r.trace ?? null, r.done ?? null];
    while (tail.length > 0 && tail[tail.length - 1] === null) tail.pop();
    (row as unknown[]).push(...tail);
    return row;
  });
  return JSON.stringify(out);
}

export function decodeStepRecords(stored: readonly unknown[], graph: GraphSnapshot, startedAt: string): StepRecord[] {
  const startedMs = Date.parse(startedAt);
  return stored.map((item) => {
    if (!Array.isArray(item)) return item as StepRecord;
    const [id, offset, elapsed, code, ports, error, label, type, warning, receipts, trace, done] = item as Stored;
    const known = stepById(graph, id);
    const [status, success] = CODES[code] ?? CODES[0];
    const rec: StepRecord = {
      step_id: id,
      label: label ?? known?.label ?? "",
      step_type: type ?? known?.step_type ?? "",
      started_at: isoAt(startedMs + offset),
      elapsed_ms: elapsed,
      success,
      status,
      output_ports: ports,
    };
    if (error !== null && error !== undefined) rec.error = error;
    if (warning !== null && warning !== undefined) rec.warning = warning;
    if (receipts) rec.receipts = receipts;
    if (trace) rec.trace = trace;
    if (done) rec.done = done;
    return rec;
  });
}
