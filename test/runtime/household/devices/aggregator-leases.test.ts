/**
 * The camera aggregator with two instances on the machine's PostgreSQL (one ManualClock):
 * frames of one window posted to both instances make one batch that fires once; a batch filled
 * across instances flushes once, from the instance that got the last frame; and when the
 * `aggregator` lease holder dies mid-window, the other flushes the batch with every frame stored.
 */
import assert from "node:assert/strict";
import { FrameAggregator, type AddOutcome } from "../../../../runtime/household/devices/aggregator";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import type { SensorEvent } from "../../../../runtime/platform/core/event-bus";
import { sharedPg, type SharedPg } from "../../../support/pg-cluster";
import { kill, moveTo, startInstance, type Instance } from "../../../support/cluster-instances";
import { startTestApp, type TestApp } from "../../../support/test-app";

const T0 = Date.parse("2026-11-22T10:00:00Z");

type Batch = Extract<SensorEvent, { kind: "camera_batch" }>;

describe("camera aggregator, two instances", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  let t: TestApp;
  const clock = new ManualClock(T0);
  let a: Instance;
  let b: Instance;
  const aggregators = new Map<Instance, FrameAggregator>();
  const batches = new Map<Instance, Batch[]>();
  let media = 0;

  before(async function () {
    pg = await sharedPg(this);
    t = await startTestApp({ clock, settings: { aggregator: { enabled: true, window_seconds: 10, batch_size: 5, cooldown_seconds: 30 } } });
    a = await startInstance(pg, t.app.ctx, clock, "a");
    b = await startInstance(pg, t.app.ctx, clock, "b");
    for (const i of [a, b]) {
      const agg = new FrameAggregator(i.ctx);
      await agg.start();
      aggregators.set(i, agg);
      batches.set(i, []);
      i.ctx.bus.subscribe("sensor.event", (e) => {
        if (e.kind === "camera_batch") batches.get(i)!.push(e);
      });
      i.settle = () => agg.idle();
    }
    await moveTo(clock, T0, [a, b]);
  });
  after(async () => {
    for (const agg of aggregators.values()) await agg.stop().catch(() => undefined);
    for (const i of [a, b]) await i?.leases.stop().catch(() => undefined);
    await t?.close();
    await pg?.drop();
  });

  const frame = (i: Instance, sensor: string): Promise<AddOutcome> => {
    const id = ++media;
    return aggregators.get(i)!.add({ sensor_id: sensor, room_name: "Hall", media_id: id, path: `media/${sensor}/${id}.jpg` });
  };
  const all = (sensor: string): Array<{ by: string; frames: number }> =>
    [a, b].flatMap((i) =>
      batches
        .get(i)!
        .filter((e) => e.sensor_id === sensor)
        .map((e) => ({ by: i.id, frames: e.media_paths.length })),
    );
  const roles = (): [Instance, Instance] => (a.leases.holds("aggregator") ? [a, b] : [b, a]);

  it("makes one batch of a window's frames posted to both instances, flushed once by the holder", async () => {
    const [holder, other] = roles();
    const start = clock.now();
    assert.equal(await frame(other, "cam1"), "opened");
    assert.equal(await frame(holder, "cam1"), "added");
    assert.equal(await frame(other, "cam1"), "added");
    await moveTo(clock, start + 9000, [a, b]);
    assert.deepEqual(all("cam1"), [], "not before the window ends");
    await moveTo(clock, start + 10_000, [a, b]);
    assert.deepEqual(all("cam1"), [{ by: holder.id, frames: 3 }]);
    assert.equal(await frame(other, "cam1"), "cooldown", "the cooldown holds on every instance");
    await moveTo(clock, start + 60_000, [a, b]);
    assert.deepEqual(all("cam1"), [{ by: holder.id, frames: 3 }]);
  });

  it("flushes a batch filled across instances once, where its last frame arrived", async () => {
    const outcomes = await Promise.all([a, b, a, b].map((i) => frame(i, "cam2")));
    assert.deepEqual(outcomes.filter((o) => o === "opened").length, 1, "one batch opened though frames raced");
    assert.equal(await frame(b, "cam2"), "flushed");
    await moveTo(clock, clock.now() + 20_000, [a, b]);
    assert.deepEqual(all("cam2"), [{ by: "b", frames: 5 }]);
  });

  it("keeps the frames stored when the holder dies mid-window: the other flushes them once", async () => {
    const [holder, other] = roles();
    const start = clock.now();
    await frame(holder, "cam3");
    await frame(other, "cam3");
    await frame(holder, "cam3");
    await moveTo(clock, start + 8000, [a, b]);
    await kill(holder); // 2 s before the window ends
    await moveTo(clock, start + 10_000, [a, b]);
    assert.deepEqual(all("cam3"), [], "nobody holds the lease yet when the window ends");
    await moveTo(clock, start + 13_000, [a, b]);
    assert.ok(other.leases.holds("aggregator"), "taken over within 5 s of the kill");
    assert.deepEqual(all("cam3"), [{ by: other.id, frames: 3 }], "flushed on taking over, with every frame");
    await moveTo(clock, start + 60_000, [a, b]);
    assert.deepEqual(all("cam3"), [{ by: other.id, frames: 3 }]);
  });
});
