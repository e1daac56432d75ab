/**
 * A finished run's row, written directly: what gate and event-log tests need without running
 * a rule. A run's event log is a view of its row (`log_status` is the log's status).
 */
import type { Knex } from "knex";

export interface RunRow {
  timestamp: string;
  rule_id?: number;
  rule_name: string;
  /** The event log's status: completed, ignored, failed or processing. */
  status: string;
  trigger_type?: string;
  pipeline_data?: Record<string, unknown>;
}

const runStatus = (logStatus: string): string => (logStatus === "failed" ? "failed" : logStatus === "processing" ? "running" : "completed");

export async function insertRunRows(db: Knex, rows: RunRow[]): Promise<void> {
  await db("workflow_executions").insert(
    rows.map((r) => ({
      rule_id: r.rule_id ?? 0,
      rule_name: r.rule_name,
      status: runStatus(r.status),
      log_status: r.status,
      trigger_type: r.trigger_type ?? "manual",
      trigger_context: JSON.stringify({ trigger_type: r.trigger_type ?? "manual" }),
      pipeline_data: JSON.stringify(r.pipeline_data ?? {}),
      started_at: new Date(r.timestamp).toISOString(),
      updated_at: new Date(r.timestamp).toISOString(),
      completed_at: r.status === "processing" ? null : new Date(r.timestamp).toISOString(),
    })),
  );
}
