/**
 * The one list of what the retention job prunes (docs/retention.md): one entry per
 * `retention.*` setting, typed so that a setting without an entry, or an entry without a
 * setting, does not compile. Each entry calls its table owner's `prune…Before`; the job
 * (platform/db/retention-job.ts) runs them in this order, hourly, under one lease.
 */
import type { RetentionSettings } from "../../settings";
import type { AppContext } from "./context";
import type { PruneBatch, RetainedTable, RetentionPlan } from "../platform/db/retention-job";
import { giveSpaceBack } from "../platform/db/sqlite-space";
import { deleteObjectsOfPrunedRows } from "../household/media/media.service";
import { objectsNamedByRuns, pruneRunsBefore } from "../care/core/pipeline/engine/run-retention";
import { prunePromptsBefore } from "../household/prompts/prompts.store";
import { pruneActivitiesBefore } from "../household/activities/activities.store";
import { objectsNamedByAlerts, pruneAlertsBefore } from "../household/alerts/alert-retention";
import { pruneLocationChangesBefore } from "../household/tracking/location-history.store";
import { pruneTransitionsBefore } from "../household/tracking/transitions.store";
import { pruneSignalsBefore } from "../household/tracking/signals.store";
import { pruneSightingsBefore } from "../household/tracking/sightings.store";
import { pruneTurnsBefore } from "../household/voice-turns/voice-turns.store";
import { pruneCallsBefore } from "../care/surfaces/mcp/call-log.store";
import { pruneQueriesBefore } from "../care/services/knowledge/retrieval/queries.store";
import { pruneEndedSessionsBefore } from "../care/services/knowledge/delivery/quiz-sessions.store";
import { pruneDeliveriesBefore } from "../care/services/knowledge/delivery/card-deliveries.store";
import { pruneVisitorsBefore } from "../household/identity/descriptors.store";
import { pruneClosedBatchesBefore } from "../household/devices/ingest-batches.store";
import { pruneReportsBefore } from "../care/services/reports/daily-reports.store";
import { reportInputsNeededFrom } from "../care/services/reports/report-inputs";
import { pruneAuditBefore } from "../platform/audit/audit.store";

type Entry = Omit<RetainedTable, "days" | "setting">;
const rows = (n: number): PruneBatch => ({ rows: n });
/** Two tables pruned as one: the second takes what is left of the batch once the first is done. */
const both = (a: (c: string, l: number) => Promise<number>, b: (c: string, l: number) => Promise<number>) => async (c: string, l: number) => {
  const n = await a(c, l);
  return rows(n < l ? n + (await b(c, l - n)) : n);
};

/** Every `retention.<key>` and what it prunes. */
const ENTRIES = (ctx: AppContext): { [K in keyof RetentionSettings]: Entry } => {
  const db = ctx.db;
  // What a daily report not yet stored reads is never pruned (care/services/reports/report-inputs.ts).
  const notAfter = (nowMs: number): string => reportInputsNeededFrom(nowMs, ctx.settings.app.timezone);
  return {
    runs_days: { what: "runs", prune: (c, l) => pruneRunsBefore(db, c, l), namedBy: (n) => objectsNamedByRuns(db, n) },
    prompts_days: { what: "answered prompts", prune: async (c, l) => rows(await prunePromptsBefore(db, c, l)) },
    activities_days: { what: "activities", notAfter, prune: async (c, l) => rows(await pruneActivitiesBefore(db, c, l)) },
    alerts_days: { what: "resolved alerts", notAfter, prune: (c, l) => pruneAlertsBefore(db, c, l), namedBy: (n) => objectsNamedByAlerts(db, n) },
    location_history_days: {
      what: "location history",
      notAfter,
      prune: both(
        (c, l) => pruneLocationChangesBefore(db, c, l),
        (c, l) => pruneTransitionsBefore(db, c, l),
      ),
    },
    dementia_signals_days: { what: "dementia signals", prune: async (c, l) => rows(await pruneSignalsBefore(db, c, l)) },
    sightings_days: { what: "sightings", notAfter, prune: async (c, l) => rows(await pruneSightingsBefore(db, c, l)) },
    voice_turns_days: { what: "voice turns", prune: async (c, l) => rows(await pruneTurnsBefore(db, c, l)) },
    mcp_calls_days: { what: "MCP tool calls", prune: async (c, l) => rows(await pruneCallsBefore(db, c, l)) },
    knowledge_queries_days: { what: "knowledge questions", prune: async (c, l) => rows(await pruneQueriesBefore(db, c, l)) },
    knowledge_deliveries_days: {
      what: "quiz sessions and card deliveries",
      prune: both(
        (c, l) => pruneEndedSessionsBefore(db, c, l),
        (c, l) => pruneDeliveriesBefore(db, c, l),
      ),
    },
    visitors_days: { what: "unnamed visitors", prune: async (c, l) => rows(await pruneVisitorsBefore(db, c, l)) },
    camera_batches_days: { what: "camera batches", prune: async (c, l) => rows(await pruneClosedBatchesBefore(db, c, l)) },
    // By the report's own local day: the cutoff's date, so a day goes once wholly older.
    daily_reports_days: { what: "daily reports", prune: async (c, l) => rows(await pruneReportsBefore(db, c.slice(0, 10), l)) },
    audit_log_days: { what: "audit log", prune: async (c, l) => rows(await pruneAuditBefore(db, c, l)) },
  };
};

/** The job's plan with this context's settings (read at each round). */
export function retentionPlan(ctx: AppContext): RetentionPlan {
  const days: RetentionSettings = ctx.settings.retention;
  const entries = ENTRIES(ctx);
  const tables = (Object.keys(entries) as Array<keyof RetentionSettings>).map((key): RetainedTable => ({
    ...entries[key],
    days: days[key],
    setting: `retention.${key}`,
  }));
  return {
    tables,
    deleteMedia: (names, keptByRows) => deleteObjectsOfPrunedRows(ctx, names, keptByRows),
    giveSpaceBack: async (signal) => void (await giveSpaceBack(ctx.db, signal)),
  };
}
