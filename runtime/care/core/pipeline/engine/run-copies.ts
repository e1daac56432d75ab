/**
 * Runs read for a rehearsal and copied into its scratch store: a rule's recorded runs in a
 * window (what it actually did, beside what it would have done), and the earlier runs its
 * cool-off, daily limit and dependencies look back on.
 */
import type { Knex } from "knex";
import { copyRows } from "../../../../platform/db/table-copy";
import { parseRow, selectExecutions, type ExecutionRow } from "./execution-rows";

/** The runs of these rules started in [fromIso, toIso), oldest first. */
export async function runsOfRulesBetween(db: Knex, ruleIds: readonly number[], fromIso: string, toIso: string): Promise<ExecutionRow[]> {
  if (!ruleIds.length) return [];
  const rows = (await selectExecutions(db)
    .whereIn("we.rule_id", [...ruleIds])
    .andWhere("we.started_at", ">=", fromIso)
    .andWhere("we.started_at", "<", toIso)
    .orderBy("we.started_at", "asc")
    .orderBy("we.id", "asc")) as Array<Record<string, unknown>>;
  return rows.map((r) => parseRow(r));
}

/** Copies these runs (rows and their graph snapshots, ids kept) into another store. */
export async function copyRunsInto(from: Knex, to: Knex, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 200) {
    const chunk = ids.slice(i, i + 200);
    const snapshots = (await from("workflow_executions").whereIn("id", chunk).whereNotNull("graph_snapshot_id").distinct("graph_snapshot_id")) as Array<{
      graph_snapshot_id: number;
    }>;
    const have = new Set(((await to("graph_snapshots").select("id")) as Array<{ id: number }>).map((r) => Number(r.id)));
    const missing = snapshots.map((s) => Number(s.graph_snapshot_id)).filter((id) => !have.has(id));
    if (missing.length) await copyRows(from, to, "graph_snapshots", (q) => q.whereIn("id", missing));
    await copyRows(from, to, "workflow_executions", (q) => q.whereIn("id", chunk));
  }
}
