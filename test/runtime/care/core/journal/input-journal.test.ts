/**
 * The input journal (issue 27 §1): what a rule could see is recorded in order with the app
 * clock's time — a terminal press over HTTP, a webhook call, presence and sightings on the bus —
 * and pruned after `journal.retention_days`; on SQLite and PostgreSQL (the suite's store).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { readEntries, journalSize } from "../../../../../runtime/care/core/journal/journal.store";
import { pruneOnce } from "../../../../../runtime/platform/db/retention";
import { InputJournal, journalRetention } from "../../../../../runtime/care/core/journal/input-journal";
import { EventBus } from "../../../../../runtime/platform/core/event-bus";
import { createLogger } from "../../../../../runtime/platform/core/logger";
import type { Store } from "../../../../../runtime/platform/db/store";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { openFreshStore } from "../../../../support/test-db";
import { eventually } from "../../../../support/eventually";

const START = Date.parse("2026-11-20T07:00:00Z");
const WINDOW = { from: "2026-01-01T00:00:00Z", to: "2027-01-01T00:00:00Z", limit: 1000 };

describe("input journal", function () {
  this.timeout(60_000);
  let t: TestApp;
  const clock = new ManualClock(START);
  before(async () => {
    t = await startTestApp({ clock, nodeRed: true, settings: { journal: { retention_days: 14 } } });
  });
  after(() => t.close());

  it("records a terminal press, a webhook call, a presence change and a sighting in the order they came, with their time", async () => {
    const res = await t.request("POST", "/api/v1/device/terminal", { key: KEYS.terminal, body: { button: "double" } });
    assert.equal(res.status, 200, res.text);
    clock.advance(1000);
    t.app.ctx.bus.publish("sensor.event", { kind: "presence", sensor_id: "hall_motion", room_name: "Hallway", occupied: true, at: clock.now() });
    t.app.ctx.bus.publish("person.sighted", {
      person_id: "rose",
      person_name: "Rose",
      visitor: false,
      sensor_id: "kitchen_cam",
      room_name: "Kitchen",
      confidence: 0.9,
      bbox: [1, 2, 3, 4],
      at: clock.now(),
      media_path: "media/ab/abc.jpg",
      direction_raw: null,
      direction_semantic: null,
    });
    const rule = await t.post("/api/v1/rules", { name: "Doorbell", trigger_type: "webhook" });
    assert.equal(rule.status, 201, rule.text);
    const secret = (await t.post(`/api/v1/webhooks/${rule.body.id}/generate-secret`, {})).body.secret as string;
    const hook = await t.request("POST", `/api/v1/webhooks/${rule.body.id}`, { key: null, headers: { "X-Webhook-Secret": secret }, body: { who: "postman" } });
    assert.ok(hook.status < 300, hook.text);

    const all = await eventually("five journal entries", async () => {
      const e = await readEntries(t.app.ctx.db, WINDOW);
      return e.length >= 5 && e;
    });
    // The sighting moved Rose to the kitchen: the location change it caused is an input too.
    const kindOf = (e: (typeof all)[number]) => (e.payload as { kind?: string }).kind;
    const moved = all.findIndex((e) => e.topic === "sensor.event" && kindOf(e) === "location");
    assert.ok(moved > all.findIndex((e) => e.topic === "person.sighted"), JSON.stringify(all));
    assert.equal((all[moved].payload as { input: { person_id: string } }).input.person_id, "rose");
    const entries = all.filter((_, i) => i !== moved);
    assert.deepEqual(
      entries.map((e) => [e.topic, e.sensor_id]),
      [
        ["sensor.event", "bedside_terminal"],
        ["sensor.event", "hall_motion"],
        ["person.sighted", "kitchen_cam"],
        ["webhook.called", null],
      ],
    );
    assert.equal(entries[0].at, new Date(START).toISOString());
    assert.equal(entries[1].at, new Date(START + 1000).toISOString());
    assert.deepEqual((entries[0].payload as { input: unknown }).input, { source: "terminal", button: "double", command: null, args: [] });
    assert.deepEqual(entries[3].payload, { rule_id: rule.body.id, payload: { who: "postman" } });
    assert.equal((entries[2].payload as { media_path: string }).media_path, "media/ab/abc.jpg", "a frame is a reference into the media store");
    assert.ok((await journalSize(t.app.ctx.db)).payload_bytes > 100);
  });

  it("keeps the entries of the last retention_days and deletes older ones", async () => {
    const all = await readEntries(t.app.ctx.db, WINDOW);
    // 14 days and half a second after the first entry: only the terminal press is older.
    const pruneClock = new ManualClock(START + 14 * 86400_000 + 500);
    assert.equal(await pruneOnce({ clock: pruneClock, log: t.app.ctx.log }, journalRetention(t.app.ctx)), 1);
    const left = await readEntries(t.app.ctx.db, WINDOW);
    assert.deepEqual(
      left.map((e) => e.id),
      all.filter((e) => e.at > new Date(START).toISOString()).map((e) => e.id),
    );
  });

  it("skips an input that cannot be written as JSON and keeps recording the ones around it", async () => {
    const from = new Date(clock.now()).toISOString();
    const presence = (sensor: string, extra: object = {}) =>
      t.app.ctx.bus.publish("sensor.event", { kind: "presence", sensor_id: sensor, room_name: "Hallway", occupied: true, at: clock.now(), ...extra });
    presence("before_odd");
    presence("odd", { raw: 10n });
    presence("after_odd");
    const kept = await eventually("the inputs around the odd one", async () => {
      const e = (await readEntries(t.app.ctx.db, { ...WINDOW, from })).filter(
        (x) => (x.payload as { kind?: string }).kind === "presence" && x.sensor_id?.endsWith("_odd"),
      );
      return e.length >= 2 && e;
    });
    assert.deepEqual(
      kept.map((e) => e.sensor_id),
      ["before_odd", "after_odd"],
    );
    // Later inputs are still written: the odd one is not retried forever.
    presence("later");
    await eventually("a later input", async () => (await readEntries(t.app.ctx.db, { ...WINDOW, from })).some((x) => x.sensor_id === "later"));
  });
});

describe("input journal under a stream of inputs", () => {
  let store: Store;
  let close: () => Promise<void>;
  before(async () => ({ store, close } = await openFreshStore("migrated")));
  after(() => close());

  it("keeps every input, in order, written in a transaction at most every 100 ms", async () => {
    const bus = new EventBus();
    const clock = new ManualClock(START);
    const journal = new InputJournal({ db: store.db, bus, clock, log: createLogger("silent") });
    // The journal is the only writer here: each transaction begun is one of its writes.
    let transactions = 0;
    const onQuery = (q: { sql: string }) => void (/^begin/i.test(q.sql.trim()) && transactions++);
    store.db.on("query", onQuery);
    journal.start();
    const started = performance.now();
    // 300 presence changes in 30 bursts 10 ms apart: a write per burst would be 30 transactions.
    for (let i = 0; i < 300; i++) {
      bus.publish("sensor.event", { kind: "presence", sensor_id: `stream_${i}`, room_name: "Hallway", occupied: i % 2 === 0, at: clock.now() });
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 10)); // sleep-ok: the bursts' spacing is the load under test
    }
    const elapsed = performance.now() - started;
    const streamed = await eventually("300 streamed entries", async () => {
      const e = await readEntries(store.db, { ...WINDOW, limit: 10_000 });
      return e.length >= 300 && e;
    });
    store.db.off("query", onQuery);
    await journal.stop();
    assert.deepEqual(
      streamed.map((e) => e.sensor_id),
      Array.from({ length: 300 }, (_, i) => `stream_${i}`),
    );
    // One write at once, then one per 100 ms that passed (and the last, after the stream ends).
    assert.ok(transactions <= Math.ceil(elapsed / 100) + 2, `${transactions} transactions in ${Math.round(elapsed)} ms`);
  });
});
