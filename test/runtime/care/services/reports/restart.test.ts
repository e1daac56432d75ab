/**
 * A restart stores the daily reports of the days the service was down for, once, against the
 * same store (SQLite, or PostgreSQL with CAREFLOW_TEST_DATABASE_URL), in Europe/Berlin.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../../runtime/platform/core/logger";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { createApp, type CareflowApp } from "../../../../../runtime/app/app";
import { recordActivity } from "../../../../../runtime/household/activities/activities.store";
import { createPerson } from "../../../../../runtime/household/persons/persons.service";
import type { DailyReport } from "../../../../../runtime/care/services/reports";
import { readStoredReport } from "../../../../../runtime/care/services/reports/daily-reports.store";
import { migratedDatabase } from "../../../../support/test-db";
import { testAuthSettings } from "../../../../support/test-app";

const TZ = "Europe/Berlin";
const at = (iso: string): number => Date.parse(iso);

describe("care reports: a restart stores the missing past days once", function () {
  this.timeout(60_000);
  let db: Awaited<ReturnType<typeof migratedDatabase>>;
  before(async () => {
    db = await migratedDatabase();
  });
  after(() => db.drop());

  const start = (clock: ManualClock): Promise<CareflowApp> =>
    createApp({
      config: {
        port: 0,
        dataDir: db.dataDir,
        databaseUrl: db.databaseUrl,
        settingsFile: undefined,
        settings: buildSettings({ auth: testAuthSettings(), app: { timezone: TZ } }),
      },
      clock,
      log: createLogger("silent"),
      nodeRed: false,
    });

  it("stores the days it was down for at start, and nothing twice after another restart", async () => {
    const first = await start(new ManualClock(at("2026-05-04T08:00:00Z")));
    await createPerson(first.ctx, { person_id: "rose", display_name: "Grandma Rose" });
    await recordActivity(first.ctx.db, {
      timestamp: "2026-05-04T09:00:00.000Z",
      activity_type: "medication",
      person_id: "rose",
      room_name: null,
      confidence: 1,
      metadata_json: {},
      rule_id: null,
      execution_id: null,
    });
    await first.reports.idle();
    await first.close();

    // Down from Monday 10:00 until Thursday 09:00 (Berlin): Monday, Tuesday and Wednesday are missing.
    const second = await start(new ManualClock(at("2026-05-07T07:00:00Z")));
    await second.reports.idle();
    const days = ["2026-05-04", "2026-05-05", "2026-05-06"];
    const stored = await Promise.all(days.map((d) => readStoredReport<DailyReport>(second.ctx.db, "rose", d)));
    assert.deepEqual(
      stored.map((r) => [r?.date, r?.medication.count, r?.generated_at]),
      days.map((d, i) => [d, i === 0 ? 1 : 0, "2026-05-07T07:00:00.000Z"]),
    );
    assert.equal(await readStoredReport(second.ctx.db, "rose", "2026-05-07"), null, "today is not over");
    assert.equal(await readStoredReport(second.ctx.db, "rose", "2026-05-03"), null, "not before Rose was registered");
    await second.close();

    const third = await start(new ManualClock(at("2026-05-07T08:00:00Z")));
    await third.reports.idle();
    const again = await Promise.all(days.map((d) => readStoredReport<DailyReport>(third.ctx.db, "rose", d)));
    assert.deepEqual(
      again.map((r) => r?.generated_at),
      days.map(() => "2026-05-07T07:00:00.000Z"),
      "stored once: the second restart changes nothing",
    );
    const count = await third.ctx.db("daily_reports").count<{ n: number | string }[]>({ n: "*" });
    assert.equal(Number(count[0].n), 3);
    await third.close();
  });
});
