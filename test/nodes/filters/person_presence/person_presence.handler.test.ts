import assert from "node:assert/strict";
import { handler } from "../../../../nodes/filters/person_presence/person_presence.handler";
import { spec } from "../../../../nodes/filters/person_presence/person_presence.node";
import { trigger } from "../../handler-context";
import { configOf, MIN, useTrackingDb, type TrackingDb } from "../_support/tracking-db";

const NOW = Date.parse("2026-11-22T10:00:00Z");
type Seed = (t: TrackingDb) => Promise<unknown>;

describe("person_presence filter handler", () => {
  const t = useTrackingDb();
  const inKitchen: Seed = (t) => t.seed.location("rose", "Kitchen", NOW - 5 * MIN);
  const stale: Seed = (t) => t.seed.location("rose", "Kitchen", NOW - 31 * MIN);
  const leftHome: Seed = (t) => t.seed.location("rose", null, NOW - 2 * MIN, { source: "hub_sensor" });
  const none: Seed = async () => undefined;
  const someoneElse: Seed = (t) => t.seed.location("arun", "Kitchen", NOW - 1 * MIN);

  const cases: Array<[string, Seed, Record<string, unknown>, boolean, string]> = [
    ["in a room, wanted home", inKitchen, { status: "home" }, true, "rose is home, in Kitchen"],
    ["in that room (any case)", inKitchen, { status: "home", room_name: "kitchen" }, true, "rose is home, in Kitchen"],
    ["in another room", inKitchen, { status: "home", room_name: "Bedroom" }, false, "rose is home, in Kitchen, not in Bedroom"],
    ["in a room, wanted away", inKitchen, { status: "away" }, false, "rose is home, in Kitchen, not away"],
    ["exactly 30 min old is still fresh", (t) => t.seed.location("rose", "Kitchen", NOW - 30 * MIN), { status: "home" }, true, "rose is home, in Kitchen"],
    ["stale counts as away", stale, { status: "away" }, true, "rose's location is stale (last seen 31 min ago, counts as away)"],
    ["stale is not home", stale, { status: "home" }, false, "rose's location is stale (last seen 31 min ago, counts as away), not home"],
    ["stale is not unknown", stale, { status: "unknown" }, false, "rose's location is stale (last seen 31 min ago, counts as away), not unknown"],
    ["seen leaving is away", leftHome, { status: "away" }, true, "rose left home 2 min ago"],
    ["room_name applies only to home", leftHome, { status: "away", room_name: "Kitchen" }, true, "rose left home 2 min ago"],
    ["no location is unknown", none, { status: "unknown" }, true, "rose has no location"],
    ["no location is not home", none, { status: "home" }, false, "rose has no location, not home"],
    ["another person's location does not count", someoneElse, { status: "home" }, false, "rose has no location, not home"],
  ];
  for (const [name, seed, config, pass, reason] of cases) {
    it(`${name} → ${pass ? "pass" : "hold"}`, async () => {
      await seed(t);
      const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { person_id: "rose", ...config }));
      assert.deepEqual(r, { pass, reason: `person_presence: ${reason}` });
    });
  }

  it("holds without a person_id", async () => {
    const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, {}));
    assert.deepEqual(r, { pass: false, reason: "person_presence: no person_id is set" });
  });

  it("uses 30 minutes even when person_tracking.stale_timeout_minutes differs", async () => {
    await t.seed.location("rose", "Kitchen", NOW - 20 * MIN);
    const r = await handler(t.ctx({ staleTimeoutMinutes: 10 }), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { person_id: "rose" }));
    assert.equal(r.pass, true);
  });
});
