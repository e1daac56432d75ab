import assert from "node:assert/strict";
import { handler } from "../../../../nodes/filters/room_transition/room_transition.handler";
import { spec } from "../../../../nodes/filters/room_transition/room_transition.node";
import { trigger } from "../../handler-context";
import { configOf, MIN, useTrackingDb } from "../_support/tracking-db";

const NOW = Date.parse("2026-11-22T10:00:00Z");

describe("room_transition filter handler", () => {
  const t = useTrackingDb();
  beforeEach(async () => {
    await t.seed.transition({ person_id: "rose", semantic: "approaching_exit", from_room_name: "Hallway", to_room_name: "Porch", atMs: NOW - 2 * MIN });
    await t.seed.transition({ person_id: "rose", semantic: "entering", from_room_name: "Bedroom", to_room_name: "Hallway", atMs: NOW - 4 * MIN });
    await t.seed.transition({ person_id: "rose", semantic: "entering", from_room_name: "Kitchen", to_room_name: "Bathroom", atMs: NOW - 20 * MIN });
    await t.seed.transition({ person_id: "arun", semantic: "exiting", from_room_name: "Kitchen", to_room_name: null, atMs: NOW - 1 * MIN });
  });

  const cases: Array<[string, Record<string, unknown>, boolean, string]> = [
    ["any transition", {}, true, "rose was approaching_exit from Hallway to Porch 2 min ago"],
    ["semantic", { semantic: "entering" }, true, "rose was entering from Bedroom to Hallway 4 min ago"],
    [
      "semantic and room, any case",
      { semantic: "approaching_exit", from_room_name: "hallway" },
      true,
      "rose was approaching_exit from Hallway to Porch 2 min ago",
    ],
    ["to room", { to_room_name: "HALLWAY" }, true, "rose was entering from Bedroom to Hallway 4 min ago"],
    ["too old for the window", { to_room_name: "Bathroom" }, false, "no transition to Bathroom by rose in the last 5 min"],
    ["inside a longer window", { to_room_name: "Bathroom", within_minutes: 30 }, true, "rose was entering from Kitchen to Bathroom 20 min ago"],
    ["semantic that did not happen", { semantic: "exiting" }, false, "no exiting transition by rose in the last 5 min"],
    [
      "rooms that do not go together",
      { from_room_name: "Bedroom", to_room_name: "Porch" },
      false,
      "no transition from Bedroom to Porch by rose in the last 5 min",
    ],
    ["a blank room is any room", { semantic: "entering", to_room_name: "  " }, true, "rose was entering from Bedroom to Hallway 4 min ago"],
  ];
  for (const [name, config, pass, reason] of cases) {
    it(`${name} → ${pass ? "pass" : "hold"}`, async () => {
      const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { person_id: "rose", ...config }));
      assert.deepEqual(r, { pass, reason: `room_transition: ${reason}` });
    });
  }

  it("only counts the person's own transitions", async () => {
    const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { person_id: "mira" }));
    assert.deepEqual(r, { pass: false, reason: "room_transition: no transition by mira in the last 5 min" });
  });

  it("holds without a person_id", async () => {
    const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, {}));
    assert.deepEqual(r, { pass: false, reason: "room_transition: no person_id is set" });
  });
});
