/**
 * `GET /pipeline/ingest/activity` (spec: "recent camera ingest events"), as the original
 * derived it, from what is stored rather than from counters: frames received (media rows)
 * and rules a sensor event triggered (event logs), newest first. Each entry is an
 * IngestActivityEnvelope `{id, event_type, timestamp, sensor_id, trigger_type, rule_name}`
 * with what else careflow knows of it (room, object name, execution and its status).
 */
import type { CareContext } from "../../context";
import { listEventLogs } from "../../events/event-logs.service";
import { latestFramesOfAll } from "../../../../household/media/media.service";

export interface IngestActivity {
  id: string;
  event_type: "frame_received" | "rule_triggered";
  timestamp: string;
  sensor_id: string | null;
  trigger_type: string | null;
  rule_name: string | null;
  room_name: string | null;
  object_name?: string | null;
  labels?: string[];
  execution_id?: number | null;
  status?: string;
}

export async function ingestActivity(ctx: CareContext, limit: number): Promise<IngestActivity[]> {
  const [frames, logs] = await Promise.all([latestFramesOfAll(ctx, limit), listEventLogs(ctx, { trigger_type: "sensor_event", limit, offset: 0 })]);
  const events: IngestActivity[] = [
    ...frames.map((f): IngestActivity => ({
      id: `frame:${f.id}`,
      event_type: "frame_received",
      timestamp: f.captured_at,
      sensor_id: f.sensor_id,
      trigger_type: null,
      rule_name: null,
      room_name: f.room_name,
      object_name: f.object_name,
      labels: f.labels,
    })),
    ...logs.map((l): IngestActivity => ({
      id: `rule:${l.id}`,
      event_type: "rule_triggered",
      timestamp: l.timestamp,
      sensor_id: l.sensor_id,
      trigger_type: l.trigger_type,
      rule_name: l.rule_name,
      room_name: l.room_name,
      execution_id: l.execution_id,
      status: l.status,
    })),
  ];
  // Same instant: the frame first, it came before the rule it triggered.
  events.sort((a, b) => b.timestamp.localeCompare(a.timestamp) || (a.event_type === b.event_type ? 0 : a.event_type === "rule_triggered" ? -1 : 1));
  return events.slice(0, limit);
}
