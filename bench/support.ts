import os from "node:os";

/** What every benchmark shares: timing helpers, a table printer and the one JSON line. */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export interface BenchRow {
  measure: string;
  value: number | string;
  unit: string;
  target?: string;
  ok?: boolean;
}

/**
 * Prints the table and the machine's load average (on a shared 2-core box a figure means little
 * without it), then exactly one JSON line `{"bench": name, ...figures, load_average}`.
 */
export function report(name: string, rows: readonly BenchRow[], figures: Record<string, unknown>): void {
  const load = os.loadavg().map((l) => Number(l.toFixed(2)));
  const fmt = (v: number | string) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  const cells = rows.map((r) => [r.measure, fmt(r.value), r.unit, r.target ?? "", r.ok === undefined ? "" : r.ok ? "yes" : "NO"]);
  const header = ["measure", "value", "unit", "target", "met"];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i])).join("  ");
  process.stdout.write(`${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${cells.map(line).join("\n")}\n`);
  process.stdout.write(`load average (1, 5, 15 min): ${load.join(", ")} on ${os.cpus().length} cores\n`);
  process.stdout.write(JSON.stringify({ bench: name, ...figures, load_average: load }) + "\n");
}
