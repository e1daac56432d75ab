/**
 * careflow's heartbeat on the hub (issue 44 §4), against the fake hub on a ManualClock:
 * `sensor.careflow_heartbeat` holds the app's time at start and again each minute, with the
 * parts' summary; a hub that is away misses beats and gets the next one when it is back.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { HEARTBEAT_ENTITY, HEARTBEAT_EVERY_MS } from "../../../../runtime/household/hub/hub-heartbeat";
import { startFakeHub, type FakeHub } from "../../../fakes/hub-server";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";

describe("the heartbeat on the hub", function () {
  this.timeout(30000);
  let hub: FakeHub;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));
  const heartbeat = () => hub.states().find((s) => s.entity_id === HEARTBEAT_ENTITY);
  const beatAt = (ms: number, wait = 5000) =>
    eventually(`the heartbeat of ${new Date(ms).toISOString()}`, () => heartbeat()?.state === new Date(ms).toISOString() && heartbeat(), wait);

  before(async () => {
    hub = await startFakeHub({ token: "hub-token-1" });
    t = await startTestApp({ clock, settings: { hub: { url: hub.url, token: hub.token } } });
  });
  after(async () => {
    await t?.close();
    await hub?.close();
  });

  it("is written at start and every minute on the app's clock, with the parts' summary", async () => {
    const started = clock.now();
    const first = await beatAt(started);
    assert.equal(first.attributes.device_class, "timestamp");
    assert.ok(["ok", "late", "silent", "down"].includes(first.attributes.parts_state as string));
    assert.equal(typeof (first.attributes.parts_counts as Record<string, number>).ok, "number");
    assert.ok(Array.isArray(first.attributes.parts_not_ok));

    clock.advance(HEARTBEAT_EVERY_MS - 1000);
    // Nothing new before the minute is up.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(heartbeat()?.state, new Date(started).toISOString());
    clock.advance(1000);
    await beatAt(started + HEARTBEAT_EVERY_MS);
  });

  it("a hub that was away gets a beat again within minutes of coming back", async () => {
    await hub.stop();
    clock.advance(HEARTBEAT_EVERY_MS);
    const missed = clock.now();
    await hub.restart();
    // The first beat after the restart may meet a connection the stopped hub left dead; the next one gets through.
    for (let minute = 0; minute < 3; minute++) {
      clock.advance(HEARTBEAT_EVERY_MS);
      const arrived = await beatAt(clock.now()).then(
        () => true,
        () => false,
      );
      if (arrived) break;
    }
    assert.ok(Date.parse(heartbeat()!.state) > missed, `the heartbeat moved on: ${heartbeat()?.state}`);
  });
});
