/**
 * Tracking fixes applied many in one transaction (the tracking stream's batches) leave the
 * same location state and history as the same fixes applied one at a time: the last fix of a
 * person is where they are, every move is in history in order, refreshed stays keep their
 * quality, and a fix older than where the person is does not move them but goes into history
 * at its own time (issue 51, item 10).
 */
import assert from "node:assert/strict";
import type { Store } from "../../../../runtime/platform/db/store";
import type { Knex } from "knex";
import { applyFixesIn, lockForFixes, type LockedLocations } from "../../../../runtime/household/tracking/tracking-fixes";
import { WriteBatch } from "../../../../runtime/platform/db/write-batch";
import type { Evidence } from "../../../../runtime/household/tracking/location-step";
import { getPersonLocation } from "../../../../runtime/household/tracking/locations.store";
import { listLocationChanges } from "../../../../runtime/household/tracking/location-history.store";
import { listTransitions } from "../../../../runtime/household/tracking/transitions.store";
import { openFreshStore } from "../../../support/test-db";

const T0 = Date.parse("2026-11-22T07:00:00Z");
const LIMITS = { lock_seconds: 10, stale_timeout_minutes: 30 };

const fix = (person: string, room: string, second: number, confidence: number): { ev: Evidence; room: { id: null; name: string } } => ({
  ev: {
    person_id: person,
    person_name: person,
    room_name: room,
    source: "cts",
    sensor_id: `${room.toLowerCase()}-cam`,
    confidence,
    atMs: T0 + second * 1000,
    direction_raw: null,
    direction_semantic: null,
    ph_id: `ph-${person}`,
  },
  room: { id: null, name: room },
});

/** Kitchen at 0 s; then a batch: Kitchen again, Hallway, Hallway again, an old Bedroom fix (history only), Kitchen. */
const script = (person: string) => [
  [fix(person, "Kitchen", 0, 0.8)],
  [
    fix(person, "Kitchen", 1, 0.6),
    fix(person, "Hallway", 2, 0.9),
    fix(person, "Hallway", 3, 0.7),
    fix(person, "Bedroom", 1, 0.9),
    fix(person, "Kitchen", 4, 0.5),
  ],
];

describe("tracking fixes applied in one transaction", () => {
  let store: Store;
  let close: () => Promise<void>;
  const events: Record<string, string[]> = { batched: [], alone: [], ahead: [], missed: [] };
  const applied = (items: Parameters<typeof applyFixesIn>[1], readAhead?: (trx: Knex) => Promise<LockedLocations>) =>
    store.db.transaction(async (trx) => {
      const batch = new WriteBatch(trx);
      const published = await applyFixesIn(batch, items, LIMITS, readAhead && (await readAhead(trx)));
      await batch.run();
      return published;
    });
  before(async () => {
    ({ store, close } = await openFreshStore("migrated"));
    for (const batch of script("batched")) {
      const published = await applied(batch);
      events.batched.push(...published.map((e) => String(e.room_name)));
    }
    // As the tracking stream does: the locations read ahead (readForCommit), for the right
    // person, and for someone else only (the person must then be read inside).
    for (const batch of script("ahead")) events.ahead.push(...(await applied(batch, (trx) => lockForFixes(trx, ["ahead"]))).map((e) => String(e.room_name)));
    for (const batch of script("missed")) events.missed.push(...(await applied(batch, (trx) => lockForFixes(trx, ["nobody"]))).map((e) => String(e.room_name)));
    for (const batch of script("alone"))
      for (const one of batch) {
        const published = await applied([one]);
        events.alone.push(...published.map((e) => String(e.room_name)));
      }
  });
  after(() => close());

  const history = async (person: string) =>
    (await listLocationChanges(store.db, person, new Date(T0 - 1000).toISOString())).map((c) => ({
      room: c.room_name,
      at: c.timestamp,
      quality: c.mean_quality,
      samples: c.quality_samples,
      ph_id: c.ph_id,
    }));

  it("places the person by their last fix and keeps every move in history, the refreshed stays with their quality", async () => {
    const location = await getPersonLocation(store.db, "batched");
    assert.equal(location?.room_name, "Kitchen");
    assert.equal(location?.updated_at, new Date(T0 + 4000).toISOString());
    assert.deepEqual(await history("batched"), [
      { room: "Kitchen", at: new Date(T0 + 4000).toISOString(), quality: 0.5, samples: 1, ph_id: "ph-batched" },
      { room: "Hallway", at: new Date(T0 + 2000).toISOString(), quality: 0.8, samples: 2, ph_id: "ph-batched" },
      // The Bedroom fix came after the Hallway ones: where she is stays theirs, the history has it at its time.
      { room: "Bedroom", at: new Date(T0 + 1000).toISOString(), quality: 0.9, samples: 1, ph_id: "ph-batched" },
      { room: "Kitchen", at: new Date(T0).toISOString(), quality: 0.7, samples: 2, ph_id: "ph-batched" },
    ]);
    assert.deepEqual(events.batched, ["Kitchen", "Hallway", "Kitchen"], "one location event per move, in order");
  });

  it("decides the same with the locations read ahead, and reads a person the read ahead left out", async () => {
    for (const person of ["ahead", "missed"]) {
      const location = await getPersonLocation(store.db, person);
      assert.equal(location?.room_name, "Kitchen", person);
      assert.equal(location?.updated_at, new Date(T0 + 4000).toISOString(), person);
      assert.deepEqual(
        (await history(person)).map(({ ph_id: _ph, ...r }) => r),
        (await history("batched")).map(({ ph_id: _ph, ...r }) => r),
        person,
      );
      assert.deepEqual(events[person], events.batched, person);
    }
  });

  it("leaves the same state, history and transitions as one fix at a time", async () => {
    const strip = <T extends { person_id?: string; person_name?: string | null; ph_id?: string | null }>(rows: T[]) =>
      rows.map(({ person_id: _p, person_name: _n, ph_id: _ph, ...rest }) => rest);
    const [a, b] = await Promise.all([getPersonLocation(store.db, "batched"), getPersonLocation(store.db, "alone")]);
    assert.deepEqual({ ...a, person_id: "" }, { ...b, person_id: "" });
    assert.deepEqual(
      (await history("batched")).map(({ ph_id: _ph, ...r }) => r),
      (await history("alone")).map(({ ph_id: _ph, ...r }) => r),
    );
    const range = { since: new Date(T0 - 1000).toISOString(), until: new Date(T0 + 10_000).toISOString() };
    const moves = async (person: string) => strip(await listTransitions(store.db, { person_id: person, ...range })).map(({ id: _id, ...t }) => t);
    assert.deepEqual(await moves("batched"), await moves("alone"));
    assert.equal((await moves("batched")).length, 3);
    assert.deepEqual(events.batched, events.alone);
  });
});

/**
 * Two writers at once (two instances, or the hub's sensors beside the tracking stream): one
 * decided a move and has not written it when another places the same person later. The later
 * fix must win and its transition start from the room the first one left, whichever commits
 * first; on PostgreSQL each reads and writes in a transaction of its own at READ COMMITTED.
 */
describe("tracking fixes from two writers at once", () => {
  let store: Store;
  let close: () => Promise<void>;
  before(async () => ({ store, close } = await openFreshStore("migrated")));
  after(() => close());

  const race = async (person: string) => {
    const first = await store.db.transaction();
    const firstBatch = new WriteBatch(first);
    await applyFixesIn(firstBatch, [fix(person, "Kitchen", 20, 0.9)], LIMITS);
    // The second writer begins while the first has decided and not written.
    let secondDone = false;
    const second = store.db
      .transaction(async (trx) => {
        const batch = new WriteBatch(trx);
        await applyFixesIn(batch, [fix(person, "Lounge", 30, 0.9)], LIMITS);
        await batch.run();
      })
      .then(() => (secondDone = true));
    await new Promise((r) => setTimeout(r, 300));
    const waited = !secondDone;
    await firstBatch.run();
    await first.commit();
    await second;
    return waited;
  };

  for (const placed of [true, false])
    it(`keeps the later fix and chains the moves${placed ? "" : ", for a person placed nowhere before"}`, async () => {
      const person = placed ? "rose" : "ravi";
      if (placed)
        await store.db.transaction(async (trx) => {
          const batch = new WriteBatch(trx);
          await applyFixesIn(batch, [fix(person, "Hallway", 0, 0.9)], LIMITS);
          await batch.run();
        });
      const waited = await race(person);
      const location = await getPersonLocation(store.db, person);
      assert.equal(location?.room_name, "Lounge", "she is where the later fix saw her");
      assert.equal(location?.updated_at, new Date(T0 + 30_000).toISOString());
      const range = { person_id: person, since: new Date(T0 - 1000).toISOString(), until: new Date(T0 + 60_000).toISOString() };
      const moves = (await listTransitions(store.db, range)).map((t) => `${t.from_room_name ?? "-"} > ${t.to_room_name}`).sort();
      assert.deepEqual(moves, [...(placed ? ["- > Hallway", "Hallway > Kitchen"] : ["- > Kitchen"]), "Kitchen > Lounge"].sort());
      assert.ok(waited, "the second writer waited for the first");
    });
});
