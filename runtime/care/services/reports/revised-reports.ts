/**
 * Stored reports follow identity revisions. When a revision rewrote people's location history
 * from some instant on (bus `tracking.revised`), each of their stored reports of a day from
 * that instant's local day up to yesterday is built again and replaces the stored one: a stay
 * placed by a rewritten row lasts until the person's next change, so the days after it may read
 * differently too. Today's report is built at each request anyway; a past day with no stored
 * report gets the corrected history when it is first stored.
 */
import type { CareContext } from "../../core/context";
import type { BusTopics } from "../../../platform/core/event-bus";
import { listPersons } from "../../../household/persons/persons.service";
import { buildDailyReport } from "./daily-report";
import { replaceReport, storedReportKeys } from "./daily-reports.store";
import { addDays, compareDates, dateText, localDateOf } from "./local-day";

/** Rebuilds the stored reports the revision touched; answers how many it replaced. */
export async function rebuildRevisedReports(ctx: CareContext, revised: BusTopics["tracking.revised"]): Promise<number> {
  const timeZone = ctx.settings.app.timezone;
  const today = localDateOf(ctx.clock.now(), timeZone);
  const first = localDateOf(Date.parse(revised.from), timeZone);
  if (compareDates(first, today) >= 0) return 0;
  const stored = await storedReportKeys(ctx.db, dateText(first));
  const people = (await listPersons(ctx)).filter((p) => revised.person_ids.includes(p.person_id));
  let replaced = 0;
  for (const person of people)
    for (let d = first; compareDates(d, today) < 0; d = addDays(d, 1)) {
      if (!stored.has(`${person.person_id}|${dateText(d)}`)) continue;
      const built = await buildDailyReport(ctx, person, d);
      const report = { person_id: built.person_id, report_date: built.date, timezone: built.timezone, generated_at: built.generated_at, report: built };
      if (await replaceReport(ctx.db, report)) replaced += 1;
    }
  return replaced;
}
