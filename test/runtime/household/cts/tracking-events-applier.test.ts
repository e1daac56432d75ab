/**
 * What the tracking-events stream reads before it plans a batch: the names of everyone the
 * batch places, in one query however many they are, and again once they are a few seconds
 * old (a rename shows). On SQLite or PostgreSQL (CAREFLOW_TEST_DATABASE_URL).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { decodeTrackingEvent } from "../../../../runtime/household/cts/cts-codec";
import type { DecodedTrackingEvent } from "../../../../runtime/household/cts/cts-messages";
import { LiveFrames } from "../../../../runtime/household/cts/live-frames";
import { RecentRevisions } from "../../../../runtime/household/cts/recent-revisions";
import { TrackingEventsApplier } from "../../../../runtime/household/cts/tracking-events.applier";
import { LocationFusion } from "../../../../runtime/household/tracking/location-fusion";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { trackingEventBytes } from "../../../fakes/cts-publisher";
import { CAMERAS } from "../../../fakes/cts-script";

const PEOPLE = Array.from({ length: 12 }, (_, i) => ({ person_id: `member${i}`, display_name: `Member ${i}` }));

describe("tracking events: what a batch reads before it is planned", function () {
  this.timeout(30_000);
  let t: TestApp;
  let applier: TrackingEventsApplier;
  const clock = new ManualClock(Date.now());
  let personReads = 0;

  before(async () => {
    t = await startTestApp({ clock, settings: { cts: { cameras: CAMERAS } } });
    for (const p of PEOPLE) {
      const res = await t.post("/api/v1/persons", p);
      assert.equal(res.status, 201, res.text);
    }
    const ctx = t.app.ctx;
    applier = new TrackingEventsApplier(ctx, new LocationFusion(ctx), new LiveFrames(ctx), new RecentRevisions());
    // Reads of names only: the app's own jobs count the members after each is added (the
    // midnight report job), and on a loaded PostgreSQL those counts can land in a batch's window.
    ctx.db.on("query", (q: { sql: string }) => {
      if (/^select .*[`"]display_name[`"].* from [`"]persons[`"]/.test(q.sql)) personReads++;
    });
  });
  after(async () => t?.close());

  /** One event per member, each on the hall camera, as the batch the pump would take together. */
  const batch = (tag: string): DecodedTrackingEvent[] =>
    PEOPLE.map((p, i) => {
      const decoded = decodeTrackingEvent(
        trackingEventBytes({ camera_id: "hall-cam", event_id: `${tag}-${i}`, people: [{ ph_id: `ph-${p.person_id}`, identity_id: p.person_id }] }, clock.now()),
      );
      assert.ok(decoded.ok);
      return decoded.value;
    });

  /** Prepares and plans the batch as the pump does; the names its fixes carry, and the person reads it took. */
  async function planned(tag: string): Promise<{ names: Array<string | null>; reads: number }> {
    const before = personReads;
    const events = batch(tag);
    await applier.prepare(events);
    const names: Array<string | null> = [];
    for (const e of events) for (const fix of (await applier.plan(e)).fixes) names.push(fix.person_name);
    return { names, reads: personReads - before };
  }

  it("reads the names of everyone a batch places in one query, not one each", async () => {
    const first = await planned("a");
    assert.deepEqual(
      first.names,
      PEOPLE.map((p) => p.display_name),
    );
    assert.equal(first.reads, 1);
    // Read a moment ago: the next batch reads nobody.
    clock.advance(1000);
    assert.equal((await planned("b")).reads, 0);
  });

  /** One frame of the hall camera with the people given, captured at `at`. */
  const frame = (event_id: string, people: Array<{ ph_id: string; identity_id: string; probability?: number }>, at = clock.now()) => {
    const decoded = decodeTrackingEvent(trackingEventBytes({ camera_id: "hall-cam", event_id, people, at }, clock.now()));
    assert.ok(decoded.ok);
    return decoded.value;
  };

  it("places a frame from a camera whose clock runs ahead at careflow's now: a location in the future would make every later sighting look late", async () => {
    const now = clock.now();
    const ahead = await applier.plan(frame("ahead", [{ ph_id: "ph-a", identity_id: "member1" }], now + 5 * 60_000));
    assert.deepEqual([ahead.atMs, ...ahead.fixes.map((f) => f.atMs)], [now, now]);
    const behind = await applier.plan(frame("behind", [{ ph_id: "ph-b", identity_id: "member1" }], now - 2_000));
    assert.deepEqual([behind.atMs, ...behind.fixes.map((f) => f.atMs)], [now - 2_000, now - 2_000], "a frame from the past keeps its capture time");
  });

  it("drops a frame older than cts.stale_seconds (one exactly that old is kept) or without a camera, saying why", () => {
    const now = clock.now();
    const stale = t.app.ctx.settings.cts.stale_seconds;
    assert.equal(applier.check(frame("edge", [], now - stale * 1000), now), null);
    assert.equal(applier.check(frame("old", [], now - stale * 1000 - 1_000), now), `tracking event captured ${stale + 1} s ago (stale after ${stale} s)`);
    const nameless = decodeTrackingEvent(trackingEventBytes({ camera_id: "", event_id: "x", people: [] }, now));
    assert.ok(nameless.ok);
    assert.equal(applier.check(nameless.value, now), "tracking event without a camera_id");
  });

  it("places a person seen twice in one frame once, by the more confident sighting", async () => {
    const plan = await applier.plan(
      frame("twice", [
        { ph_id: "ph-far", identity_id: "member2", probability: 0.6 },
        { ph_id: "ph-near", identity_id: "member2", probability: 0.95 },
        { ph_id: "ph-other", identity_id: "member4", probability: 0.7 },
      ]),
    );
    assert.deepEqual(
      plan.fixes.map((f) => [f.person_id, f.ph_id, Math.round(f.confidence * 100) / 100]),
      [
        ["member2", "ph-near", 0.95],
        ["member4", "ph-other", 0.7],
      ],
    );
  });

  it("reads them again together once they are a few seconds old, so a rename shows", async () => {
    const res = await t.request("PATCH", "/api/v1/persons/member3", { body: { display_name: "Margaret" } });
    assert.equal(res.status, 200, res.text);
    clock.advance(6000);
    const again = await planned("c");
    assert.equal(again.reads, 1);
    assert.equal(again.names[3], "Margaret");
  });
});
