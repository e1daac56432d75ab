/** Event logs: one per rule firing, finalised completed / ignored / failed. */
import type { CareContext } from "../context";
import { fromJsonText } from "../../../platform/db/json-column";

export const EVENT_LOG_STATUSES = ["processing", "completed", "ignored", "failed"] as const;

export interface EventLog {
  id: number;
  timestamp: string;
  rule_id: number | null;
  rule_name: string | null;
  room_name: string | null;
  sensor_id: string | null;
  status: string;
  trigger_type: string | null;
  execution_id: number | null;
  pipeline_data: Record<string, unknown>;
  details: string | null;
}

export interface EventLogFilters {
  rule_name?: string;
  status?: string;
  trigger_type?: string;
  limit: number;
  offset: number;
}

export async function listEventLogs(ctx: CareContext, f: EventLogFilters): Promise<EventLog[]> {
  // Event logs are written with their runs, by group commit: show what is queued too.
  await ctx.engine?.store.flushQueued();
  // Newest first: a log's id is its run's, handed out as runs start.
  const q = ctx.db("event_logs").select("*").orderBy("id", "desc").limit(f.limit).offset(f.offset);
  if (f.rule_name !== undefined) q.where("rule_name", f.rule_name);
  if (f.status !== undefined) q.where("status", f.status);
  if (f.trigger_type !== undefined) q.where("trigger_type", f.trigger_type);
  const rows: Array<Omit<EventLog, "pipeline_data"> & { pipeline_data_json: string }> = await q;
  return rows.map(({ pipeline_data_json, ...r }) => ({ ...r, pipeline_data: fromJsonText(pipeline_data_json, {}) }));
}

/**
 * The gates look back from the app clock's now, never past it: a rehearsal's scratch store
 * holds the recorded runs of the whole window, of which only those already started count.
 */
const notAfterNow = (ctx: CareContext): string => new Date(ctx.clock.now()).toISOString();

/** The newest completed log of the rule at or after `sinceIso` (`inclusive`) or after it; for the cool-off and dependency gates. */
export async function lastCompletedLog(
  ctx: CareContext,
  ruleId: number,
  sinceIso: string,
  inclusive: boolean,
): Promise<{ timestamp: string; rule_name: string | null } | undefined> {
  return ctx
    .db("event_logs")
    .where({ rule_id: ruleId, status: "completed" })
    .andWhere("timestamp", inclusive ? ">=" : ">", sinceIso)
    .andWhere("timestamp", "<=", notAfterNow(ctx))
    .orderBy("timestamp", "desc")
    .first("timestamp", "rule_name");
}

/** How many logs (runs, any status) the rule has since `sinceIso`; for the daily-limit gate. */
export async function countLogsSince(ctx: CareContext, ruleId: number, sinceIso: string): Promise<number> {
  const row: { n?: number | string } | undefined = await ctx
    .db("event_logs")
    .where({ rule_id: ruleId })
    .andWhere("timestamp", ">=", sinceIso)
    .andWhere("timestamp", "<=", notAfterNow(ctx))
    .count({ n: "*" })
    .first();
  return Number(row?.n ?? 0);
}
