/**
 * The notification an alert stands for: the one it was raised with (stored on the alert), or,
 * for older rows and other raisers, its description through its level's channels.
 */
import type { Settings } from "../../../../settings";
import { fromJsonText } from "../../../platform/db/json-column";
import type { EscalationRow } from "../../../household/alerts/alerts.service";
import { escalationPlan, levelPlan } from "../../core/language/alert-levels";
import { parsePlan, type NotificationPlan } from "./plan";

export function alertPlan(settings: Settings, row: EscalationRow): NotificationPlan {
  const stored = parsePlan(fromJsonText(row.notification_json, null));
  if (stored) return stored;
  const level = levelPlan(settings, row.level);
  return {
    alert_level: row.level,
    channels: level.channels,
    messages: Object.fromEntries(level.channels.map((c) => [c, row.description])),
    room_name: row.room_name,
    image_url: row.image_url,
    execution_id: row.execution_id,
    options: {},
    escalation: escalationPlan(level),
  };
}
