/**
 * Daily reports, the person timeline and open activity sessions, on the real app and store
 * (SQLite, or PostgreSQL with CAREFLOW_TEST_DATABASE_URL) in Europe/Berlin on a ManualClock:
 * a day of activities, sightings and alerts gives the expected report; today's is not
 * stored; yesterday's is stored at Berlin's midnight and read back unchanged; the timeline
 * merges and orders; sessions open and close.
 */
import assert from "node:assert/strict";
import type { PersonSighting } from "../../../../../runtime/platform/core/event-bus";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { NotFoundError, ValidationError } from "../../../../../runtime/platform/core/errors";
import type { CareflowApp } from "../../../../../runtime/app/app";
import { recordActivity } from "../../../../../runtime/household/activities/activities.store";
import { actOnAlert, createAlert } from "../../../../../runtime/household/alerts/alerts.service";
import { createPerson } from "../../../../../runtime/household/persons/persons.service";
import { dailyReport, openSessions, personTimeline, type DailyReport } from "../../../../../runtime/care/services/reports";
import { readStoredReport } from "../../../../../runtime/care/services/reports/daily-reports.store";
import { startTestApp, type TestApp } from "../../../../support/test-app";

const TZ = "Europe/Berlin";
const at = (iso: string): number => Date.parse(iso);
// 2026-05-03 22:00 UTC is midnight in Berlin (CEST, UTC+2): the 4th begins.
const BERLIN_MIDNIGHT_4TH = "2026-05-03T22:00:00.000Z";

async function household(t: TestApp): Promise<void> {
  const rooms: Record<string, number> = {};
  for (const name of ["kitchen", "bedroom", "bathroom"]) rooms[name] = (await t.post("/api/v1/rooms", { name })).body.id;
  assert.equal((await t.request("PUT", "/api/v1/sensors/kitchen_cam", { body: { room_id: rooms.kitchen } })).status, 200);
  const bed = await t.post("/api/v1/sensors", { sensor_id: "bedroom_cam", name: "Bedroom camera", sensor_type: "camera", room_id: rooms.bedroom });
  assert.ok(bed.status < 300, bed.text);
}

describe("care reports: daily report, timeline, open sessions", function () {
  this.timeout(60_000);
  let t: TestApp;
  let clock: ManualClock;
  let app: CareflowApp;

  const setClock = async (iso: string) => {
    clock.set(at(iso));
    await app.reports.idle();
  };
  const see = async (sensor_id: string, o: Partial<PersonSighting> = {}) => {
    app.ctx.bus.publish("person.sighted", {
      person_id: "rose",
      person_name: "Rose",
      visitor: false,
      sensor_id,
      room_name: null,
      confidence: 0.9,
      bbox: [1, 2, 3, 4],
      at: clock.now(),
      media_path: null,
      direction_raw: null,
      direction_semantic: null,
      ...o,
    });
    await app.tracking.idle();
  };
  const act = (activity_type: string, room_name: string | null, metadata_json: Record<string, unknown> = {}, person_id: string | null = "rose") =>
    recordActivity(app.ctx.db, {
      timestamp: new Date(clock.now()).toISOString(),
      activity_type,
      person_id,
      room_name,
      confidence: 0.8,
      metadata_json,
      rule_id: null,
      execution_id: null,
    });
  const report = async (q: { person_id?: string; report_date?: string }) => (await dailyReport(app.ctx, q)) as DailyReport;

  beforeEach(async () => {
    clock = new ManualClock(at("2026-05-03T20:00:00Z")); // 22:00 in Berlin, Sunday 3 May
    t = await startTestApp({ clock, settings: { app: { timezone: TZ } } });
    app = t.app;
    await household(t);
    await createPerson(app.ctx, { person_id: "rose", display_name: "Grandma Rose" });
    await app.reports.idle(); // the midnight job has armed for Rose
  });
  afterEach(() => t.close());

  /** Sunday evening to Monday noon, Berlin time. */
  async function liveADay(): Promise<{ dismissedId: number; lateId: number }> {
    await setClock("2026-05-03T20:30:00Z"); // 22:30
    await see("bedroom_cam");
    await act("sleep_start", "bedroom");
    await setClock("2026-05-03T21:00:00Z"); // 23:00
    const late = await createAlert(app.ctx, { alert_type: "no_motion", level: "warning", description: "No motion in the hallway", room_name: "hallway" });
    await setClock(BERLIN_MIDNIGHT_4TH);
    await setClock("2026-05-04T04:30:00Z"); // 06:30
    await act("sleep_end", "bedroom");
    await setClock("2026-05-04T05:00:00Z"); // 07:00
    await see("kitchen_cam", { direction_semantic: "entering" });
    await act("meal_start", "kitchen");
    await setClock("2026-05-04T05:10:00Z");
    await act("medication", "kitchen");
    await setClock("2026-05-04T05:30:00Z");
    await act("meal_end", "kitchen");
    await setClock("2026-05-04T06:00:00Z"); // 08:00
    const fall = await createAlert(app.ctx, { alert_type: "fall", level: "emergency", description: "Rose may have fallen", room_name: "kitchen" });
    await setClock("2026-05-04T06:05:00Z");
    await actOnAlert(app.ctx, fall.id, { action: "dismiss", note: "she is fine" }, "caregiver Anna");
    await actOnAlert(app.ctx, late.id, { action: "dismiss" }, "caregiver Anna");
    await createAlert(app.ctx, { alert_type: "door", level: "warning", description: "Front door open", room_name: null });
    await setClock("2026-05-04T06:20:00Z");
    await act("bathroom_enter", "bathroom");
    await setClock("2026-05-04T10:00:00Z"); // 12:00
    await see("kitchen_cam");
    await act("eating", "kitchen");
    await setClock("2026-05-04T10:30:00Z"); // 12:30
    return { dismissedId: fall.id, lateId: late.id };
  }

  it("builds today's report from the day's activities, sessions, sightings, stays and alerts, and does not store it", async () => {
    const { dismissedId } = await liveADay();
    const r = await report({ person_id: "rose" });
    assert.equal(r.person_id, "rose");
    assert.equal(r.display_name, "Grandma Rose");
    assert.equal(r.date, "2026-05-04");
    assert.equal(r.timezone, TZ);
    assert.deepEqual(r.window, { from: BERLIN_MIDNIGHT_4TH, to: "2026-05-04T10:30:00.000Z" });
    assert.equal(r.complete, false);
    assert.equal(r.stored, false);
    assert.equal(r.generated_at, "2026-05-04T10:30:00.000Z");

    assert.equal(r.activities.count, 6);
    assert.deepEqual(r.activities.by_type, { sleep_end: 1, meal_start: 1, medication: 1, meal_end: 1, bathroom_enter: 1, eating: 1 });
    assert.deepEqual(
      r.activities.items.map((a) => `${a.local_time} ${a.activity_type}`),
      ["06:30 sleep_end", "07:00 meal_start", "07:10 medication", "07:30 meal_end", "08:20 bathroom_enter", "12:00 eating"],
    );
    assert.deepEqual(
      r.sessions.map((s) => [s.activity_type, s.started_at, s.ended_at, s.minutes]),
      [
        ["sleep", "2026-05-03T20:30:00.000Z", "2026-05-04T04:30:00.000Z", 480],
        ["meal", "2026-05-04T05:00:00.000Z", "2026-05-04T05:30:00.000Z", 30],
        ["bathroom", "2026-05-04T06:20:00.000Z", null, null],
      ],
    );
    assert.equal(r.meals.count, 2, "meal_start … meal_end is one meal, eating another");
    assert.deepEqual(
      r.meals.items.map((m) => [m.local_time, m.activity_type, m.ended_at]),
      [
        ["07:00", "meal_start", "2026-05-04T05:30:00.000Z"],
        ["12:00", "eating", null],
      ],
    );
    assert.deepEqual({ count: r.medication.count, times: r.medication.times }, { count: 1, times: ["07:10"] });

    assert.equal(r.sleep.minutes, 480);
    assert.equal(r.sleep.minutes_based_on, "sleep_sessions");
    assert.deepEqual(r.sleep.based_on, ["sleep_sessions", "bedroom_presence"]);
    assert.deepEqual(r.sleep.bedroom, { rooms: ["bedroom"], minutes: 420, entered: 1 }, "from midnight until the kitchen sighting at 07:00");
    assert.match(r.sleep.summary, /480 min asleep/);

    assert.deepEqual(r.sightings, {
      count: 2,
      rooms: [{ room_name: "kitchen", count: 2, first_seen: "2026-05-04T05:00:00.000Z", last_seen: "2026-05-04T10:00:00.000Z" }],
    });
    assert.deepEqual(r.locations, {
      changes: 1,
      minutes_by_room: [
        { room_name: "bedroom", minutes: 420 },
        { room_name: "kitchen", minutes: 330 },
      ],
    });

    assert.equal(r.alerts.scope, "household");
    assert.deepEqual(
      { count: r.alerts.count, open: r.alerts.open, resolved: r.alerts.resolved, by_level: r.alerts.by_level },
      {
        count: 2,
        open: 1,
        resolved: 1,
        by_level: { emergency: 1, warning: 1 },
      },
    );
    const fall = r.alerts.items.find((a) => a.id === dismissedId)!;
    assert.equal(fall.local_time, "08:00");
    assert.deepEqual(
      { resolved: fall.resolved, resolved_by: fall.resolved_by, actions: fall.actions },
      {
        resolved: true,
        resolved_by: "caregiver Anna",
        actions: [{ action: "dismiss", actor: "caregiver Anna", at: "2026-05-04T06:05:00.000Z", note: "she is fine" }],
      },
    );

    // Built on request: nothing of today is in the store, and a later request sees later data.
    assert.equal(await readStoredReport(app.ctx.db, "rose", "2026-05-04"), null);
    await setClock("2026-05-04T11:00:00Z");
    await act("lunch", "kitchen");
    const later = await report({ person_id: "rose", report_date: "2026-05-04" });
    assert.equal(later.meals.count, 3);
    assert.equal(later.stored, false);
  });

  it("stores yesterday's report at Berlin's midnight, and reads it back unchanged", async () => {
    await setClock("2026-05-03T20:30:00Z");
    await see("bedroom_cam");
    await act("sleep_start", "bedroom");
    await setClock("2026-05-03T21:00:00Z");
    const late = await createAlert(app.ctx, { alert_type: "no_motion", level: "warning", description: "No motion in the hallway", room_name: "hallway" });
    await setClock("2026-05-03T21:59:59Z");
    assert.equal(await readStoredReport(app.ctx.db, "rose", "2026-05-03"), null, "not before midnight in Berlin");
    await setClock(BERLIN_MIDNIGHT_4TH);
    const stored = await readStoredReport<DailyReport>(app.ctx.db, "rose", "2026-05-03");
    assert.ok(stored, "stored at midnight in Berlin, two hours before UTC's");
    assert.equal(stored.generated_at, BERLIN_MIDNIGHT_4TH);
    assert.equal(stored.complete, true);
    assert.deepEqual(stored.window, { from: "2026-05-02T22:00:00.000Z", to: BERLIN_MIDNIGHT_4TH });
    assert.deepEqual(stored.activities.by_type, { sleep_start: 1 });
    assert.deepEqual(
      stored.sessions.map((s) => [s.activity_type, s.ended_at]),
      [["sleep", null]],
    );
    assert.deepEqual({ minutes: stored.sleep.minutes, on: stored.sleep.minutes_based_on }, { minutes: 90, on: "bedroom_presence" });
    assert.deepEqual({ count: stored.alerts.count, open: stored.alerts.open }, { count: 1, open: 1 });

    const first = await report({ person_id: "rose", report_date: "2026-05-03" });
    assert.equal(first.stored, true);
    assert.deepEqual(first, { ...stored, stored: true });

    // The next day goes on: a new activity, yesterday's alert resolved, Rose renamed.
    await setClock("2026-05-04T06:00:00Z");
    await act("medication", "kitchen");
    await actOnAlert(app.ctx, late.id, { action: "dismiss" }, "caregiver Anna");
    await t.request("PATCH", "/api/v1/persons/rose", { body: { display_name: "Rose" } });
    const again = await report({ person_id: "rose", report_date: "2026-05-03" });
    assert.deepEqual(again, first, "a stored report never changes");
    assert.equal(again.alerts.items[0].resolved, false, "as it stood at the end of the day");

    // Every member, by id; a member with no data has an empty report.
    await createPerson(app.ctx, { person_id: "tom", display_name: "Tom" });
    const all = (await dailyReport(app.ctx, {})) as DailyReport[];
    assert.deepEqual(
      all.map((r) => [r.person_id, r.date, r.stored, r.activities.count]),
      [
        ["rose", "2026-05-04", false, 1],
        ["tom", "2026-05-04", false, 0],
      ],
    );
    assert.deepEqual(all[1].sleep.based_on, []);
    assert.deepEqual(all[1].sightings, { count: 0, rooms: [] });

    // Removing a member removes their reports with their other data.
    assert.equal((await t.request("DELETE", "/api/v1/persons/rose")).status, 204);
    assert.equal(await readStoredReport(app.ctx.db, "rose", "2026-05-03"), null);
  });

  it("re-arms each midnight: a clock that jumps three days stores each day once", async () => {
    await act("medication", "kitchen");
    await setClock("2026-05-06T23:00:00Z"); // 01:00 on the 7th
    await app.reports.idle();
    const rows = await Promise.all(["2026-05-03", "2026-05-04", "2026-05-05", "2026-05-06"].map((d) => readStoredReport<DailyReport>(app.ctx.db, "rose", d)));
    assert.deepEqual(
      rows.map((r) => r?.medication.count),
      [1, 0, 0, 0],
    );
    assert.equal(await readStoredReport(app.ctx.db, "rose", "2026-05-07"), null);
  });

  it("refuses a day after today, a malformed date and an unknown person", async () => {
    await assert.rejects(report({ report_date: "2026-05-04" }), ValidationError);
    await assert.rejects(report({ report_date: "2026-02-30" }), ValidationError);
    await assert.rejects(report({ report_date: "4 May" }), ValidationError);
    await assert.rejects(report({ person_id: "nobody" }), NotFoundError);
  });

  it("merges activities, sightings and moves into one timeline, oldest first", async () => {
    await liveADay();
    const timeline = await personTimeline(app.ctx, { person_id: "rose", minutes: 360 }); // since 06:30 Berlin
    assert.deepEqual(
      timeline.map((e) => [e.timestamp.slice(11, 16), e.kind, e.summary]),
      [
        ["04:30", "activity", "sleep ended in bedroom"],
        ["05:00", "sighting", "seen by kitchen_cam in kitchen, entering"],
        ["05:00", "location", "moved to kitchen from bedroom (camera)"],
        ["05:00", "activity", "meal started in kitchen"],
        ["05:10", "activity", "medication in kitchen"],
        ["05:30", "activity", "meal ended in kitchen"],
        ["06:20", "activity", "bathroom started in bathroom"],
        ["10:00", "sighting", "seen by kitchen_cam in kitchen"],
        // The kitchen location had gone stale (30 min without evidence): the sighting placed Rose again.
        ["10:00", "location", "placed in kitchen again (camera)"],
        ["10:00", "activity", "eating in kitchen"],
      ],
    );
    assert.equal(timeline[2].room_name, "kitchen");
    assert.deepEqual(timeline[2].details.from_room, "bedroom");
    assert.equal(timeline[4].details.activity_type, "medication");
    // The default window is the last hour.
    assert.deepEqual(
      (await personTimeline(app.ctx, { person_id: "rose" })).map((e) => e.kind),
      ["sighting", "location", "activity"],
    );
    await assert.rejects(personTimeline(app.ctx, { person_id: "nobody", minutes: 60 }), NotFoundError);
    await assert.rejects(personTimeline(app.ctx, { person_id: "rose", minutes: 0 }), ValidationError);
  });

  it("opens a session at its start and closes it at its end", async () => {
    await createPerson(app.ctx, { person_id: "tom", display_name: "Tom" });
    await act("bathroom_enter", "bathroom");
    await setClock("2026-05-03T20:05:00Z");
    await act("meal", "kitchen", { session: "start" }, "tom");
    await act("bathroom_enter", "bathroom"); // again while open: the first start stands
    await setClock("2026-05-03T20:12:30Z");
    let open = await openSessions(app.ctx, {});
    assert.deepEqual(
      open.map((s) => [s.person_id, s.display_name, s.activity_type, s.started_at, s.open_minutes, s.room_name, s.start_activity_type]),
      [
        ["rose", "Grandma Rose", "bathroom", "2026-05-03T20:00:00.000Z", 12.5, "bathroom", "bathroom_enter"],
        ["tom", "Tom", "meal", "2026-05-03T20:05:00.000Z", 7.5, "kitchen", "meal"],
      ],
    );
    assert.equal(typeof open[0].start_activity_id, "number");
    assert.deepEqual(
      (await openSessions(app.ctx, { person_id: "tom" })).map((s) => s.activity_type),
      ["meal"],
    );
    assert.deepEqual(
      (await openSessions(app.ctx, { activity_type: "BATHROOM_enter" })).map((s) => s.person_id),
      ["rose"],
    );

    await act("bathroom_exit", "bathroom");
    await act("meal", "kitchen", { session: "end" }, "tom");
    assert.deepEqual(await openSessions(app.ctx, {}), []);
    await act("bathroom_end", "bathroom"); // an end with nothing open changes nothing
    await act("bathroom_enter", "bathroom");
    open = await openSessions(app.ctx, { person_id: "rose", activity_type: "bathroom" });
    assert.deepEqual(
      open.map((s) => [s.activity_type, s.started_at, s.open_minutes]),
      [["bathroom", "2026-05-03T20:12:30.000Z", 0]],
    );
    // A start with no end for a day is abandoned.
    await setClock("2026-05-04T20:13:00Z");
    assert.deepEqual(await openSessions(app.ctx, {}), []);
    await assert.rejects(openSessions(app.ctx, { person_id: "nobody" }), NotFoundError);
  });
});
