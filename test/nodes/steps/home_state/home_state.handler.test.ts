import assert from "node:assert/strict";
import { withParts } from "../../fake-services";
import { handler } from "../../../../nodes/steps/home_state/home_state.handler";
import { spec } from "../../../../nodes/steps/home_state/home_state.node";
import { stepInput } from "../../handler-context";
import { configOf, MIN, useTrackingDb, type TrackingDb } from "../../filters/_support/tracking-db";

const NOW = Date.parse("2026-11-22T10:00:00Z");
type Seed = (t: TrackingDb) => Promise<unknown>;
const flags = (at_home: boolean, asleep: boolean, away: boolean, state_unknown: boolean) => ({
  home_at_home: at_home,
  home_asleep: asleep,
  home_away: away,
  home_state_unknown: state_unknown,
});

describe("home_state step handler", () => {
  const t = useTrackingDb();
  const cases: Array<[string, Seed[], Record<string, unknown>, Record<string, unknown>, Record<string, boolean>]> = [
    ["in a room", [(t) => t.seed.location("rose", "Lounge", NOW - 1 * MIN)], { person_id: "rose" }, {}, flags(true, false, false, false)],
    ["seen leaving", [(t) => t.seed.location("rose", null, NOW - 1 * MIN)], { person_id: "rose" }, {}, flags(false, false, true, false)],
    ["stale", [(t) => t.seed.location("rose", "Lounge", NOW - 40 * MIN)], { person_id: "rose" }, {}, flags(false, false, false, true)],
    ["no location", [], { person_id: "rose" }, {}, flags(false, false, false, true)],
    [
      "person from pipeline data",
      [(t) => t.seed.location("rose", "Lounge", NOW - 1 * MIN)],
      {},
      { person_detections: [{ person_id: "rose" }] },
      flags(true, false, false, false),
    ],
  ];
  for (const [name, seeds, config, data, expected] of cases) {
    it(name, async () => {
      for (const s of seeds) await s(t);
      const r = await handler(t.ctx(), stepInput(data, "home_state"), configOf(spec, config));
      assert.deepEqual(r.data, expected);
    });
  }

  it("writes under another output_key", async () => {
    await t.seed.location("rose", "Lounge", NOW - 1 * MIN);
    const r = await handler(t.ctx(), stepInput({}, "home_state"), configOf(spec, { person_id: "rose", output_key: "rose" }));
    assert.deepEqual(r.data, { rose_at_home: true, rose_asleep: false, rose_away: false, rose_state_unknown: false });
  });

  it("answers all four false when presence cannot be read", async () => {
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
    const r = await handler(broken, stepInput({}, "home_state"), configOf(spec, { person_id: "rose" }));
    assert.deepEqual(r.data, flags(false, false, false, false));
  });
});
