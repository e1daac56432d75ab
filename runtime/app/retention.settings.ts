/** The `retention` settings section: how long each growing table keeps its rows (docs/retention.md). */
import { z } from "zod";

/** Days a table keeps its rows: a whole number, 0 for ever (docs/retention.md). */
const retentionDays = (days: number) => z.number().int("a whole number of days").min(0, "0 (kept for ever) or more days").max(36_500).default(days);

// How long each growing table keeps its rows, in days (docs/retention.md has the table and
// why each default). 0 keeps them for ever; a key left out takes its default. Pruned hourly
// by one instance, never a run that has not ended, an alert or a dementia signal not yet
// acknowledged, nor what a daily report still to be stored reads.
export const retentionSettings = z
  .object({
    runs_days: retentionDays(30),
    prompts_days: retentionDays(30),
    activities_days: retentionDays(365),
    alerts_days: retentionDays(365),
    location_history_days: retentionDays(180),
    dementia_signals_days: retentionDays(365),
    sightings_days: retentionDays(90),
    voice_turns_days: retentionDays(30),
    mcp_calls_days: retentionDays(90),
    knowledge_queries_days: retentionDays(90),
    knowledge_deliveries_days: retentionDays(365),
    visitors_days: retentionDays(180),
    camera_batches_days: retentionDays(7),
    daily_reports_days: retentionDays(730),
    audit_log_days: retentionDays(730),
  })
  .strict()
  .prefault({});
