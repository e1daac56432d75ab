/** A revision applied before the event it corrects (streams race) still decides whom the event places. */
import assert from "node:assert/strict";
import { RecentRevisions } from "../../../../runtime/household/cts/recent-revisions";

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
});
