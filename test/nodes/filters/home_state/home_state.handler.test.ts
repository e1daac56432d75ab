import assert from "node:assert/strict";
import { withParts } from "../../fake-services";
import { handler } from "../../../../nodes/filters/home_state/home_state.handler";
import { spec } from "../../../../nodes/filters/home_state/home_state.node";
import { trigger } from "../../handler-context";
import { configOf, MIN, useTrackingDb, type TrackingDb } from "../_support/tracking-db";

const NOW = Date.parse("2026-11-22T10:00:00Z");
type Seed = (t: TrackingDb) => Promise<unknown>;

describe("home_state filter handler", () => {
  const t = useTrackingDb();
  const inBedroom: Seed = (t) => t.seed.location("rose", "Bedroom", NOW - 3 * MIN);
  const leftHome: Seed = (t) => t.seed.location("rose", null, NOW - 3 * MIN);
  const stale: Seed = (t) => t.seed.location("rose", "Bedroom", NOW - 45 * MIN);
  const none: Seed = async () => undefined;

  const cases: Array<[string, Seed, string, boolean, string]> = [
    ["in a room is at_home", inBedroom, "at_home", true, "rose is at_home (presence present_room)"],
    ["in a room is not away", inBedroom, "away", false, "rose is at_home (presence present_room), not away"],
    ["asleep is never known from locations alone", inBedroom, "asleep", false, "rose is at_home (presence present_room), not asleep"],
    ["seen leaving is away", leftHome, "away", true, "rose is away (presence away)"],
    ["seen leaving is not at_home", leftHome, "at_home", false, "rose is away (presence away), not at_home"],
    ["stale is state_unknown", stale, "state_unknown", true, "rose is state_unknown (presence stale)"],
    ["stale is not away", stale, "away", false, "rose is state_unknown (presence stale), not away"],
    ["no location is state_unknown", none, "state_unknown", true, "rose is state_unknown (presence unknown)"],
    ["no location is not at_home", none, "at_home", false, "rose is state_unknown (presence unknown), not at_home"],
  ];
  for (const [name, seed, state, pass, reason] of cases) {
    it(`${name} → ${pass ? "pass" : "hold"}`, async () => {
      await seed(t);
      const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { person_id: "rose", state }));
      assert.deepEqual(r, { pass, reason: `home_state: ${reason}` });
    });
  }

  it("uses person_tracking.stale_timeout_minutes for staleness", async () => {
    await t.seed.location("rose", "Bedroom", NOW - 20 * MIN);
    const c = configOf(spec, { person_id: "rose", state: "state_unknown" });
    assert.equal((await handler(t.ctx({ staleTimeoutMinutes: 30 }), { trigger: trigger(), rule_id: 1, negate: false }, c)).pass, false);
    assert.equal((await handler(t.ctx({ staleTimeoutMinutes: 15 }), { trigger: trigger(), rule_id: 1, negate: false }, c)).pass, true);
  });

  it("holds when presence cannot be read", async () => {
    const ctx = t.ctx();
    const broken = {
      ...ctx,
      services: withParts(ctx.services, {
        presence: {
          resolve: async () => {
            throw new Error("store down");
          },
        },
      }),
    };
    const r = await handler(broken, { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { person_id: "rose", state: "state_unknown" }));
    assert.deepEqual(r, { pass: false, reason: "home_state: presence of rose is unavailable" });
  });

  it("holds without a person_id", async () => {
    const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, {}));
    assert.deepEqual(r, { pass: false, reason: "home_state: no person_id is set" });
  });
});
