/** A revision applied before the event it corrects (streams race) still decides whom the event places. */
import assert from "node:assert/strict";
import type { Knex } from "knex";
import { RecentRevisions } from "../../../../runtime/household/cts/recent-revisions";
import { forgetRevisedTracksBefore, rememberRevisedTrack, revisedTracksSince } from "../../../../runtime/household/cts/revised-tracks.store";
import { openStore, type Store } from "../../../../runtime/platform/db/store";
import { migratedDatabase, type TestDatabase } from "../../../support/test-db";

describe("continuous tracking: revisions remembered for late events", () => {
  it("places an event captured before the revision under the revised identity, later ones as they say", () => {
    const r = new RecentRevisions();
    r.record("ph-k", "rose", 1000, 1000);
    assert.equal(r.identityOf("ph-k", "tom", 900, 1100), "rose", "captured before the revision");
    assert.equal(r.identityOf("ph-k", "tom", 1200, 1200), "tom", "captured after it: the tracker knows better now");
    assert.equal(r.identityOf("ph-x", "tom", 900, 1100), "tom", "another track");
    assert.equal(r.identityOf("ph-k", "tom", 900, 1000 + 601_000), "tom", "forgotten after ten minutes");
    r.record("ph-u", null, 1000, 1000);
    assert.equal(r.identityOf("ph-u", "tom", 900, 1000), null, "demoted to unknown places nobody");
  });

  describe("kept in the store, for whoever consumes next", () => {
    let tdb: TestDatabase;
    let store: Store;
    let db: Knex;
    before(async () => {
      tdb = await migratedDatabase();
      store = await openStore(tdb.databaseUrl, tdb.dataDir);
      db = store.db;
    });
    after(async () => {
      await store?.close();
      await tdb?.drop();
    });

    it("gives a fresh memory (a restart, another instance) the revisions of the last ten minutes, the latest per track", async () => {
      await db.transaction(async (trx) => {
        await rememberRevisedTrack(trx, { ph_id: "ph-k", identity_id: "tom", revised_ms: 500, recorded_ms: 500 });
        await rememberRevisedTrack(trx, { ph_id: "ph-k", identity_id: "rose", revised_ms: 1000, recorded_ms: 1000 });
        await rememberRevisedTrack(trx, { ph_id: "ph-u", identity_id: null, revised_ms: 1000, recorded_ms: 1000 });
        await rememberRevisedTrack(trx, { ph_id: "ph-old", identity_id: "rose", revised_ms: 1000, recorded_ms: 1000 - 700_000 });
      });
      const now = 2000;
      const fresh = new RecentRevisions();
      fresh.restore(await revisedTracksSince(db, now - 600_000), now);
      assert.equal(fresh.identityOf("ph-k", "tom", 900, now), "rose", "the latest revision of the track");
      assert.equal(fresh.identityOf("ph-u", "tom", 900, now), null);
      assert.equal(fresh.identityOf("ph-old", "tom", 900, now), "tom", "older than ten minutes: not taken back");
      assert.equal(fresh.identityOf("ph-k", "tom", 1200, now), "tom", "captured after the revision");
    });

    it("keeps what this memory learnt after the stored row", async () => {
      const mem = new RecentRevisions();
      mem.record("ph-k", "ann", 3000, 3000);
      mem.restore(await revisedTracksSince(db, 0), 3000);
      assert.equal(mem.identityOf("ph-k", "tom", 900, 3000), "ann");
    });

    it("forgets rows older than the cutoff", async () => {
      assert.equal(await forgetRevisedTracksBefore(db, 0), 1);
      assert.deepEqual((await revisedTracksSince(db, 0)).map((r) => r.ph_id).sort(), ["ph-k", "ph-u"]);
    });
  });
});
