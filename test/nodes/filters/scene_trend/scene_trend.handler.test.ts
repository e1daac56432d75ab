import assert from "node:assert/strict";
import { handler } from "../../../../nodes/filters/scene_trend/scene_trend.handler";
import { spec } from "../../../../nodes/filters/scene_trend/scene_trend.node";
import { trigger } from "../../handler-context";
import { configOf, MIN, useTrackingDb } from "../_support/tracking-db";

const NOW = Date.parse("2026-11-22T10:00:00Z");

describe("scene_trend filter handler", () => {
  const t = useTrackingDb();
  beforeEach(async () => {
    await t.seed.trend("kitchen", "Kitchen", "warning", NOW - 10 * MIN);
    await t.seed.trend("bedroom", "Bedroom", "info", NOW - 10 * MIN);
    await t.seed.trend("hall", "Hallway", "critical", NOW - 10 * MIN);
  });

  // [name, config, trigger room, pass, reason]
  const cases: Array<[string, Record<string, unknown>, string | null, boolean, string]> = [
    ["room at the level", { room_ids: ["kitchen"] }, null, true, "Kitchen is at warning (at least warning)"],
    ["room above the level", { room_ids: ["hall"], min_severity: "warning" }, null, true, "Hallway is at critical (at least warning)"],
    ["room below the level", { room_ids: ["bedroom"] }, null, false, "Bedroom is at info, below warning"],
    ["one of several rooms is enough", { room_ids: ["bedroom", "kitchen"] }, null, true, "Kitchen is at warning (at least warning)"],
    [
      "all rooms below",
      { room_ids: ["bedroom", "kitchen"], min_severity: "critical" },
      null,
      false,
      "Bedroom is at info, Kitchen is at warning, below critical",
    ],
    ["ok counts at min ok", { room_ids: ["bedroom"], min_severity: "ok" }, null, true, "Bedroom is at info (at least ok)"],
    ["a room named instead of its id", { room_ids: ["KITCHEN"] }, null, true, "Kitchen is at warning (at least warning)"],
    ["the trigger's room when none listed", {}, "Hallway", true, "Hallway is at critical (at least warning)"],
    ["the trigger's room below", {}, "bedroom", false, "Bedroom is at info, below warning"],
    ["no trend data", { room_ids: ["garage"] }, null, false, "no trend data for garage"],
    ["no rooms and no trigger room", {}, null, false, "no room_ids are set and the event has no room"],
  ];
  for (const [name, config, room_name, pass, reason] of cases) {
    it(`${name} → ${pass ? "pass" : "hold"}`, async () => {
      const r = await handler(t.ctx(), { trigger: trigger({ room_name }), rule_id: 1, negate: false }, configOf(spec, config));
      assert.deepEqual(r, { pass, reason: `scene_trend: ${reason}` });
    });
  }
});
