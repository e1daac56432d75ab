/** The `mcp_calls` table: written in batches by call-log.ts, read by the calls endpoint. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../../platform/db/delete-before";

export interface CallRow {
  timestamp: string;
  caller: string;
  transport: "mcp" | "rest" | "voice";
  session_id: string | null;
  tool: string;
  arguments_json: string;
  duration_ms: number;
  outcome: "ok" | "error" | "refused";
  error: string | null;
}

export interface StoredCall extends Omit<CallRow, "arguments_json"> {
  id: number;
  arguments: unknown;
}

export interface CallQuery {
  tool?: string;
  caller?: string;
  outcome?: string;
  since?: string;
  limit: number;
  offset: number;
}

export async function insertCalls(db: Knex, rows: readonly CallRow[]): Promise<void> {
  // SQLite binds at most 999 variables per statement: 10 columns, 90 rows a statement.
  for (let i = 0; i < rows.length; i += 90) await db("mcp_calls").insert(rows.slice(i, i + 90));
}

export async function selectCalls(db: Knex, q: CallQuery): Promise<StoredCall[]> {
  const query = db("mcp_calls").select("*").orderBy("id", "desc").limit(q.limit).offset(q.offset);
  if (q.tool !== undefined) query.where("tool", q.tool);
  if (q.caller !== undefined) query.where("caller", q.caller);
  if (q.outcome !== undefined) query.where("outcome", q.outcome);
  if (q.since !== undefined) query.where("timestamp", ">=", q.since);
  const rows: Array<CallRow & { id: number }> = await query;
  return rows.map(({ arguments_json, ...r }) => {
    let args: unknown = arguments_json;
    try {
      args = JSON.parse(arguments_json);
    } catch {
      // kept as the text it was cut to
    }
    return { ...r, id: Number(r.id), duration_ms: Number(r.duration_ms), arguments: args };
  });
}

/** Retention (`retention.mcp_calls_days`, docs/retention.md): deletes at most `limit` calls made before the cutoff. */
export function pruneCallsBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "mcp_calls", `"timestamp" < ?`, [cutoffIso], limit);
}
