/** The household's words for a run's sentences: its time zone and the senior's name. */
import type { CareContext } from "../../context";
import { listPersons } from "../../../../household/persons/persons.service";
import type { RunWords } from "./run-detail";

export async function runWords(ctx: CareContext): Promise<RunWords> {
  const persons = await listPersons(ctx);
  // With one person in the household, the senior has a name (as the notification form says it).
  const senior = persons.length === 1 ? persons[0].display_name || persons[0].person_id : "the senior";
  return { timezone: ctx.settings.app.timezone, senior };
}
