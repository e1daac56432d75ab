import assert from "node:assert/strict";
import { handler } from "../../../../nodes/filters/day_of_week/day_of_week.handler";
import { spec } from "../../../../nodes/filters/day_of_week/day_of_week.node";
import { trigger } from "../../handler-context";
import { clockCtx, configOf } from "../_support/tracking-db";

describe("day_of_week filter handler", () => {
  // 2026-11-22 is a Sunday.
  const cases: Array<[string, string, number[], boolean, string]> = [
    ["2026-11-22T10:00:00Z", "UTC", [6], true, "day_of_week: Sunday is one of Sunday (UTC)"],
    ["2026-11-22T10:00:00Z", "UTC", [0, 1, 2, 3, 4], false, "day_of_week: Sunday is not one of Monday, Tuesday, Wednesday, Thursday, Friday (UTC)"],
    // 20:00 UTC Sunday is already 01:30 Monday in Kolkata.
    ["2026-11-22T20:00:00Z", "Asia/Kolkata", [0], true, "day_of_week: Monday is one of Monday (Asia/Kolkata)"],
    ["2026-11-22T20:00:00Z", "UTC", [0], false, "day_of_week: Sunday is not one of Monday (UTC)"],
    // 22:30 UTC is 23:30 Saturday in Berlin before the spring change, 00:30 Monday after it.
    ["2026-03-28T22:30:00Z", "Europe/Berlin", [5], true, "day_of_week: Saturday is one of Saturday (Europe/Berlin)"],
    ["2026-03-29T22:30:00Z", "Europe/Berlin", [0], true, "day_of_week: Monday is one of Monday (Europe/Berlin)"],
    ["2026-03-29T22:30:00Z", "Europe/Berlin", [6], false, "day_of_week: Monday is not one of Sunday (Europe/Berlin)"],
    ["2026-11-22T10:00:00Z", "UTC", [], false, "day_of_week: no days are listed (today is Sunday)"],
  ];
  for (const [at, tz, days, pass, reason] of cases) {
    it(`${at} in ${tz}, days ${JSON.stringify(days)} → ${pass ? "pass" : "hold"}`, async () => {
      const r = await handler(clockCtx(at, tz), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { days }));
      assert.deepEqual(r, { pass, reason });
    });
  }

  it("passes every day by default", async () => {
    for (let d = 0; d < 7; d++) {
      const at = new Date(Date.parse("2026-11-23T12:00:00Z") + d * 86_400_000).toISOString();
      assert.equal((await handler(clockCtx(at), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, {}))).pass, true);
    }
  });
});
