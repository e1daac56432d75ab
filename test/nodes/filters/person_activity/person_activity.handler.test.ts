import assert from "node:assert/strict";
import { handler } from "../../../../nodes/filters/person_activity/person_activity.handler";
import { spec } from "../../../../nodes/filters/person_activity/person_activity.node";
import { trigger } from "../../handler-context";
import { configOf, MIN, useTrackingDb, type TrackingDb } from "../_support/tracking-db";

const NOW = Date.parse("2026-11-22T10:00:00Z");
type Seed = (t: TrackingDb) => Promise<unknown>;
const med =
  (person_id: string | null, minutesAgo: number, activity_type = "medication"): Seed =>
  (t) =>
    t.seed.activity({ activity_type, person_id, atMs: NOW - minutesAgo * MIN });

describe("person_activity filter handler", () => {
  const t = useTrackingDb();
  const cases: Array<[string, Seed[], Record<string, unknown>, boolean, string]> = [
    ["recent record", [med("rose", 10)], {}, true, "rose had medication 10 min ago (in the last 30 min)"],
    ["type compared case-insensitively", [med("rose", 10, "Medication")], {}, true, "rose had medication 10 min ago (in the last 30 min)"],
    ["the newest record is reported", [med("rose", 25), med("rose", 3)], {}, true, "rose had medication 3 min ago (in the last 30 min)"],
    ["on the window's edge", [med("rose", 30)], {}, true, "rose had medication 30 min ago (in the last 30 min)"],
    ["too old", [med("rose", 31)], {}, false, "no medication by rose in the last 30 min"],
    ["within a longer window", [med("rose", 45)], { within_minutes: 60 }, true, "rose had medication 45 min ago (in the last 60 min)"],
    ["another type", [med("rose", 5, "eating")], {}, false, "no medication by rose in the last 30 min"],
    ["another person", [med("arun", 5)], {}, false, "no medication by rose in the last 30 min"],
    ["an unknown person", [med(null, 5)], {}, false, "no medication by rose in the last 30 min"],
    ["nothing recorded", [], {}, false, "no medication by rose in the last 30 min"],
    ["a record in the future is not yet", [med("rose", -5)], {}, false, "no medication by rose in the last 30 min"],
  ];
  for (const [name, seeds, config, pass, reason] of cases) {
    it(`${name} → ${pass ? "pass" : "hold"}`, async () => {
      for (const s of seeds) await s(t);
      const c = configOf(spec, { person_id: "rose", activity_type: "medication", ...config });
      const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, c);
      assert.deepEqual(r, { pass, reason: `person_activity: ${reason}` });
    });
  }

  it("holds when person_id or activity_type is empty", async () => {
    const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { person_id: "rose" }));
    assert.deepEqual(r, { pass: false, reason: "person_activity: person_id and activity_type must be set" });
  });
});
