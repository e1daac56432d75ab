import assert from "node:assert/strict";
import { handler } from "../../../../nodes/filters/room/room.handler";
import { spec } from "../../../../nodes/filters/room/room.node";
import { trigger } from "../../handler-context";
import { clockCtx, configOf } from "../_support/tracking-db";

describe("room filter handler", () => {
  const cases: Array<[string, string[], string | null, boolean, string]> = [
    ["listed room", ["Bathroom", "Kitchen"], "Kitchen", true, "room: Kitchen is one of Bathroom, Kitchen"],
    ["case-insensitive", ["bathroom"], "BATHROOM", true, "room: BATHROOM is one of bathroom"],
    ["unlisted room", ["Bathroom", "Kitchen"], "Garage", false, "room: Garage is not one of Bathroom, Kitchen"],
    ["event without a room", ["Kitchen"], null, false, "room: the event has no room (listed: Kitchen)"],
    ["empty list", [], "Kitchen", false, "room: no rooms are listed"],
  ];
  for (const [name, room_names, room_name, pass, reason] of cases) {
    it(`${name} → ${pass ? "pass" : "hold"}`, async () => {
      const input = { trigger: trigger({ trigger_type: "sensor_event", room_name }), rule_id: 1, negate: false };
      const r = await handler(clockCtx("2026-11-22T10:00:00Z"), input, configOf(spec, { room_names }));
      assert.deepEqual(r, { pass, reason });
    });
  }

  it("ignores negate (the gate applies it)", async () => {
    const input = { trigger: trigger({ room_name: "Kitchen" }), rule_id: 1, negate: true };
    assert.equal((await handler(clockCtx("2026-11-22T10:00:00Z"), input, configOf(spec, { room_names: ["Kitchen"] }))).pass, true);
  });
});
