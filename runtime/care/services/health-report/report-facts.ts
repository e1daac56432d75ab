/** The facts of the family's daily health message, read from the parts board, the runs and the alerts. */
import type { CareContext } from "../../core/context";
import { isoAt } from "../../../platform/core/clock";
import { alertsRaisedBetween, type Alert } from "../../../household/alerts/alerts.service";
import { listPersons } from "../../../household/persons/persons.service";
import { countRunsStartedBetween } from "../../core/pipeline/runs/runs.service";
import { WINDOW_HOURS, type AlertFact, type HealthFacts } from "./report-text";

/** The first who took it: an action (I'm on it, resolved), else whoever resolved it. */
function firstAcknowledgement(a: Alert): AlertFact["acknowledged"] {
  const first = a.actions[0];
  if (first) return { by: first.actor, at: first.created_at };
  return a.resolved && a.resolved_by ? { by: a.resolved_by, at: a.resolved_at ?? a.timestamp } : null;
}

/** The one person who lives there ("Rose's home"), or null ("home"). */
async function residentName(ctx: CareContext): Promise<string | null> {
  const persons = await listPersons(ctx);
  return persons.length === 1 ? persons[0]!.display_name : null;
}

/** The last 24 hours up to `now`. */
export async function gatherHealthFacts(ctx: CareContext, now: number): Promise<HealthFacts> {
  const from = isoAt(now - WINDOW_HOURS * 3_600_000);
  const to = isoAt(now + 1);
  const [resident, runs, alerts] = await Promise.all([residentName(ctx), countRunsStartedBetween(ctx, from, to), alertsRaisedBetween(ctx, from, to)]);
  return {
    resident,
    now,
    timeZone: ctx.settings.app.timezone,
    parts: ctx.parts?.list() ?? [],
    runs,
    alerts: alerts.map((a) => ({ what: a.description, acknowledged: firstAcknowledgement(a) })),
  };
}
