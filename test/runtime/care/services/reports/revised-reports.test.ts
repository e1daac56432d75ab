/**
 * An identity revision that rewrites a past day's history rebuilds that day's stored daily
 * reports: yesterday Tom was placed in the kitchen by a track that was Rose's; yesterday's
 * reports were stored at midnight; today the tracking service corrects the track over the
 * machine's NATS broker, and the stored reports of yesterday follow (Tom's loses the kitchen,
 * Rose's gains it). On a ManualClock in Europe/Berlin, SQLite or PostgreSQL.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import type { DailyReport } from "../../../../../runtime/care/services/reports";
import { readStoredReport } from "../../../../../runtime/care/services/reports/daily-reports.store";
import { streamNames } from "../../../../../runtime/household/cts/cts-streams";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../../../support/nats";
import { CtsPublisher } from "../../../../fakes/cts-publisher";
import { CAMERAS } from "../../../../fakes/cts-script";

const TZ = "Europe/Berlin";
const MONDAY = "2026-05-04";

describe("daily reports: an identity revision rebuilds the stored reports of the days it rewrote", function () {
  this.timeout(60_000);
  let t: TestApp;
  let pub: CtsPublisher;
  let prefix: string;
  // Monday 4 May 2026, 08:00 in Berlin (CEST, UTC+2).
  const clock = new ManualClock(Date.parse("2026-05-04T06:00:00Z"));

  before(async function () {
    await requireNats(this);
    prefix = uniquePrefix("revrep");
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    t = await startTestApp({
      clock,
      settings: { app: { timezone: TZ }, cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix, cameras: CAMERAS } },
    });
    for (const p of [
      { person_id: "rose", display_name: "Rose" },
      { person_id: "tom", display_name: "Tom" },
    ])
      assert.equal((await t.post("/api/v1/persons", p)).status, 201);
    await t.app.reports.idle();
    await eventually("the broker link", () => t.app.cts.health().state === "connected");
  });
  after(async () => {
    await t?.close();
    await pub?.close();
    if (prefix) await deleteStreams(NATS_URL, prefix);
  });

  const location = async (id: string) => (await t.get(`/api/v1/persons/${id}/location`)).body as { room_name: string };
  /** A tracking event now, applied before the clock moves on (older ones would be stale). */
  const seen = async (camera_id: string, ph_id: string, identity_id: string, room: string, event_id: string) => {
    await pub.event({ camera_id, people: [{ ph_id, identity_id }], event_id, at: clock.now() });
    await eventually(`${identity_id} in the ${room}`, async () => (await location(identity_id)).room_name === room);
  };
  const storedMonday = (id: string) => readStoredReport<Omit<DailyReport, "stored">>(t.app.ctx.db, id, MONDAY);
  const minutes = (r: Omit<DailyReport, "stored"> | null) => Object.fromEntries((r?.locations.minutes_by_room ?? []).map((m) => [m.room_name, m.minutes]));

  it("replaces yesterday's stored reports of both people, leaving the rest of the history as it was", async () => {
    // Monday: the kitchen track is taken for Tom at 08:00; Rose is in the bedroom from 08:30.
    await seen("kitchen-cam", "ph-kitchen", "tom", "Kitchen", "ev-1");
    clock.advance(30 * 60_000);
    await seen("bedroom-cam", "ph-rose", "rose", "Bedroom", "ev-2");
    clock.advance(30 * 60_000);
    await seen("living-cam", "ph-tom", "tom", "Living Room", "ev-3");

    // Tuesday 10:00: Monday's reports were stored at midnight.
    clock.set(Date.parse("2026-05-05T08:00:00Z"));
    await t.app.reports.idle();
    const tomBefore = await storedMonday("tom");
    const roseBefore = await storedMonday("rose");
    assert.equal(minutes(tomBefore).Kitchen, 60, "Monday as first stored: an hour in the kitchen for Tom");
    assert.equal(minutes(roseBefore).Kitchen, undefined);

    await pub.revision({ revision_id: "rev-monday", ph_id: "ph-kitchen", previous_identity_id: "tom", new_identity_id: "rose" });
    await eventually("the revision applied", async () => {
      await t.app.cts.idle();
      return t.app.cts.health().streams[streamNames(prefix, "tracking.revisions").stream]?.applied === 1;
    });
    await t.app.reports.idle();

    const tom = await storedMonday("tom");
    const rose = await storedMonday("rose");
    assert.equal(minutes(tom).Kitchen, undefined, "Tom was never in the kitchen");
    assert.ok(minutes(tom)["Living Room"] > 0, "Tom's living room stays");
    assert.equal(minutes(rose).Kitchen, 30, "Rose was in the kitchen from 08:00 until the bedroom at 08:30");
    assert.equal(rose?.generated_at, "2026-05-05T08:00:00.000Z", "rebuilt when the revision came");
    assert.equal(rose?.date, MONDAY);
    assert.equal(rose?.complete, true);
  });

  it("leaves stored reports alone when a revision rewrites only today", async () => {
    await seen("hall-cam", "ph-hall", "tom", "Hallway", "ev-4");
    const before = await storedMonday("tom");
    clock.advance(60_000);
    await pub.revision({ revision_id: "rev-today", ph_id: "ph-hall", previous_identity_id: "tom", new_identity_id: "rose" });
    await eventually("the second revision applied", async () => {
      await t.app.cts.idle();
      return t.app.cts.health().streams[streamNames(prefix, "tracking.revisions").stream]?.applied === 2;
    });
    await t.app.reports.idle();
    assert.deepEqual(await storedMonday("tom"), before);
  });
});
