/**
 * The golden day (issue 27 §3): where the recorded household day and its golden trace live, and
 * the shape of the recorded day (the input journal and the location history of one day of the
 * demo household), shared by the recorder and the golden test.
 */
import fs from "node:fs";
import path from "node:path";
import type { NewEntry } from "../../runtime/care/core/journal/journal.store";
import type { LocationChange } from "../../runtime/household/tracking/location-history.store";

/** The recorded day (UTC, the demo household's zone): a Wednesday. */
export const DAY_FROM = "2026-11-18T00:00:00.000Z";
export const DAY_TO = "2026-11-19T00:00:00.000Z";

export interface RecordedDay {
  /** How the file was made (`npm run build && node dist/test/golden/record-day.js`). */
  made_by: string;
  from: string;
  to: string;
  journal: NewEntry[];
  location_history: Array<Omit<LocationChange, "id">>;
}

/** The sources' folder (tests run from dist/test/golden). */
function fixturesDir(): string {
  const candidates = [path.resolve(__dirname, "../fixtures/golden"), path.resolve(__dirname, "../../../test/fixtures/golden")];
  return candidates.find((d) => fs.existsSync(path.join(d, "household-day.json"))) ?? candidates[1];
}

export const dayFile = (): string => path.join(fixturesDir(), "household-day.json");
export const traceFile = (): string => path.join(fixturesDir(), "golden-trace.json");

export const readDay = (): RecordedDay => JSON.parse(fs.readFileSync(dayFile(), "utf8")) as RecordedDay;
