/**
 * Runs as retention prunes them (`retention.runs_days`, docs/retention.md): only a run that
 * has ended (completed, failed or cancelled, with its end time) and ended before the cutoff.
 * A running or waiting run is never pruned, however old (n8n's #7333: a parked wait pruned by
 * its age never resumes). Its event log is a view over the run (migration 010), so it goes
 * with it. The objects a pruned run named (its frames) are answered for the media store.
 */
import type { Knex } from "knex";
import { objectNamesIn } from "../../../../household/media/media.service";

const ENDED = ["completed", "failed", "cancelled"] as const;
/** Names looked for in one statement when asking which kept runs still name some objects. */
const NAMES_PER_LOOKUP = 20;

interface PrunedRun {
  id: number | string;
  trigger_context: string | null;
  pipeline_data: string | null;
}

/**
 * The highest run id whose run started before the cutoff (ids grow with start times), found by
 * halving the id range with point reads: the runs' time columns come after their large JSON
 * ones and carry no index of their own (migration 010 keeps an ended run's index entries few),
 * so a scan of the table for them would read every run's data, hourly, mostly to find nothing.
 * Null when no run started before the cutoff.
 */
async function lastIdStartedBefore(db: Knex, cutoffIso: string): Promise<number | null> {
  const at = async (minId: number): Promise<{ id: number; started_at: string } | undefined> => {
    const r = await db("workflow_executions").where("id", ">=", minId).orderBy("id").first("id", "started_at");
    return r && { id: Number(r.id), started_at: String(r.started_at) };
  };
  const first = await at(0);
  if (!first || first.started_at >= cutoffIso) return null;
  let lo = first.id; // started before the cutoff
  const top = await db("workflow_executions").max({ id: "id" }).first();
  let hi = Number(top?.id ?? lo) + 1; // past every run that started before it
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const r = await at(mid);
    if (!r || r.started_at >= cutoffIso) hi = mid;
    else lo = r.id;
  }
  return lo;
}

/** Deletes at most `limit` runs that ended before the cutoff; answers how many and the objects they named. */
export async function pruneRunsBefore(db: Knex, cutoffIso: string, limit: number): Promise<{ rows: number; media: string[] }> {
  const last = await lastIdStartedBefore(db, cutoffIso);
  if (last === null) return { rows: 0, media: [] };
  // A run ends after it starts: only the runs up to `last` can have ended before the cutoff.
  const runs: PrunedRun[] = await db("workflow_executions")
    .where("id", "<=", last)
    .whereNotNull("completed_at")
    .where("completed_at", "<", cutoffIso)
    .whereIn("status", ENDED)
    .select("id", "trigger_context", "pipeline_data")
    .orderBy("id")
    .limit(limit);
  if (runs.length === 0) return { rows: 0, media: [] };
  const media = [...new Set(runs.flatMap((r) => [...objectNamesIn(r.trigger_context), ...objectNamesIn(r.pipeline_data)]))];
  // Ended runs never change again, so the rows read are the rows deleted.
  const rows = await db("workflow_executions")
    .whereIn(
      "id",
      runs.map((r) => r.id),
    )
    .whereNotNull("completed_at")
    .delete();
  return { rows, media };
}

/** Which of `names` a run still in the store names (its trigger or its pipeline data). */
export async function objectsNamedByRuns(db: Knex, names: readonly string[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (let i = 0; i < names.length; i += NAMES_PER_LOOKUP) {
    const some = names.slice(i, i + NAMES_PER_LOOKUP);
    const rows: PrunedRun[] = await db("workflow_executions")
      .where((q) => {
        for (const n of some) q.orWhere("trigger_context", "like", `%${n}%`).orWhere("pipeline_data", "like", `%${n}%`);
      })
      .select("id", "trigger_context", "pipeline_data");
    for (const r of rows) for (const n of [...objectNamesIn(r.trigger_context), ...objectNamesIn(r.pipeline_data)]) if (some.includes(n)) named.add(n);
  }
  return named;
}
