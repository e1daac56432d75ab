/**
 * Records the golden day (issue 27 §3): a real app lives through Grandma Rose's scripted
 * Wednesday (rose-day.ts), and the input journal and the location history of the day are
 * written to `test/fixtures/golden/household-day.json`.
 *
 *   npm run build && node dist/test/golden/record-day.js
 *
 * The example rules run live meanwhile, so the prompt answers and alert acknowledgements the
 * journal keeps are those a real day would have had.
 */
import fs from "node:fs";
import { ManualClock } from "../../runtime/platform/core/clock";
import { readEntries } from "../../runtime/care/core/journal/journal.store";
import { listLocationChangesBetween } from "../../runtime/household/tracking/location-history.store";
import { demoHouse, startFakeHub } from "../fakes/hub-server";
import { startTestApp } from "../support/test-app";
import { DAY_FROM, DAY_TO, dayFile, type RecordedDay } from "./golden-day";
import { liveTheDay, MIN, quiet, type Day } from "./rose-day";

const DAY0 = Date.parse(DAY_FROM);

async function main(): Promise<void> {
  const clock = new ManualClock(DAY0 - 10 * MIN);
  const hub = await startFakeHub({ ...demoHouse(), now: () => clock.now() });
  const t = await startTestApp({ clock, nodeRed: true, demo: true, settings: { hub: { url: hub.url, token: hub.token } } });
  if (process.env.GOLDEN_VERBOSE) console.error(`${new Date().toISOString()} app started`);
  try {
    if (!(await t.app.ctx.hub!.client!.whenConnected(5000))) throw new Error("the app did not connect to the fake hub");
    const d: Day = { t, hub, clock, day0: DAY0 };
    await quiet(d);
    await liveTheDay(d);
    clock.set(Date.parse(DAY_TO));
    await quiet(d);
    const db = t.app.ctx.db;
    const journal = (await readEntries(db, { from: DAY_FROM, to: DAY_TO, limit: 100_000 })).map(({ at, topic, sensor_id, payload }) => ({
      at,
      topic,
      sensor_id,
      payload,
    }));
    const history = (await listLocationChangesBetween(db, "rose", DAY_FROM, DAY_TO)).map(({ id: _id, ...c }) => c);
    const day: RecordedDay = {
      made_by: "npm run build && node dist/test/golden/record-day.js",
      from: DAY_FROM,
      to: DAY_TO,
      journal,
      location_history: history,
    };
    fs.writeFileSync(dayFile(), JSON.stringify(day, null, 1) + "\n");
    // The same day rehearsed in the app that lived it: rehearsal and live should agree.
    for (const rule of (await t.get("/api/v1/rules")).body as Array<{ id: number; name: string }>) {
      const res = await t.post(`/api/v1/rules/${rule.id}/rehearse`, { from: DAY_FROM, to: DAY_TO });
      const diff = res.body.difference as { summary: string } | undefined;
      console.log(`${rule.name}: rehearsed beside live: ${diff?.summary ?? res.text}`);
    }
    const topics = new Map<string, number>();
    for (const e of journal) topics.set(e.topic, (topics.get(e.topic) ?? 0) + 1);
    console.log(`${dayFile()}: ${journal.length} journal entries (${[...topics].map(([k, v]) => `${k} ${v}`).join(", ")}), ${history.length} location changes`);
  } finally {
    await t.close();
    await hub.close();
  }
}

// The app's Node-RED runtime keeps handles open after close: the script ends itself.
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
