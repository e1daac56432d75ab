import assert from "node:assert/strict";
import { handler } from "../../../../nodes/filters/time_range/time_range.handler";
import { spec } from "../../../../nodes/filters/time_range/time_range.node";
import { trigger } from "../../handler-context";
import { clockCtx, configOf } from "../_support/tracking-db";

describe("time_range filter handler", () => {
  // [instant (UTC), time zone, start, end, pass, reason]
  const cases: Array<[string, string, string, string, boolean, string]> = [
    // Asia/Kolkata is UTC+05:30 all year.
    ["2026-11-22T08:35:00Z", "Asia/Kolkata", "22:00", "06:00", false, "time_range: 14:05 is outside 22:00-06:00 (Asia/Kolkata)"],
    ["2026-11-22T16:35:00Z", "Asia/Kolkata", "22:00", "06:00", true, "time_range: 22:05 is inside 22:00-06:00 (Asia/Kolkata)"],
    ["2026-11-22T19:00:00Z", "Asia/Kolkata", "22:00", "06:00", true, "time_range: 00:30 is inside 22:00-06:00 (Asia/Kolkata)"],
    ["2026-11-23T00:30:00Z", "Asia/Kolkata", "22:00", "06:00", true, "time_range: 06:00 is inside 22:00-06:00 (Asia/Kolkata)"],
    ["2026-11-23T00:31:00Z", "Asia/Kolkata", "22:00", "06:00", false, "time_range: 06:01 is outside 22:00-06:00 (Asia/Kolkata)"],
    ["2026-11-22T02:30:00Z", "Asia/Kolkata", "08:00", "22:00", true, "time_range: 08:00 is inside 08:00-22:00 (Asia/Kolkata)"],
    ["2026-11-22T16:30:59Z", "Asia/Kolkata", "08:00", "22:00", true, "time_range: 22:00 is inside 08:00-22:00 (Asia/Kolkata)"],
    ["2026-11-22T16:31:00Z", "Asia/Kolkata", "08:00", "22:00", false, "time_range: 22:01 is outside 08:00-22:00 (Asia/Kolkata)"],
    ["2026-11-22T02:29:00Z", "Asia/Kolkata", "08:00", "22:00", false, "time_range: 07:59 is outside 08:00-22:00 (Asia/Kolkata)"],
    // The same instant in UTC is another local time.
    ["2026-11-22T08:35:00Z", "UTC", "08:00", "09:00", true, "time_range: 08:35 is inside 08:00-09:00 (UTC)"],
    // Europe/Berlin springs forward on 2026-03-29 at 01:00 UTC (02:00 CET → 03:00 CEST).
    ["2026-03-29T00:59:00Z", "Europe/Berlin", "02:00", "03:30", false, "time_range: 01:59 is outside 02:00-03:30 (Europe/Berlin)"],
    ["2026-03-29T01:00:00Z", "Europe/Berlin", "02:00", "03:30", true, "time_range: 03:00 is inside 02:00-03:30 (Europe/Berlin)"],
    ["2026-03-29T06:30:00Z", "Europe/Berlin", "08:00", "09:00", true, "time_range: 08:30 is inside 08:00-09:00 (Europe/Berlin)"],
    ["2026-03-28T06:30:00Z", "Europe/Berlin", "08:00", "09:00", false, "time_range: 07:30 is outside 08:00-09:00 (Europe/Berlin)"],
    // ... and falls back on 2026-10-25 at 01:00 UTC: 02:30 happens twice, both inside.
    ["2026-10-25T00:30:00Z", "Europe/Berlin", "02:00", "02:59", true, "time_range: 02:30 is inside 02:00-02:59 (Europe/Berlin)"],
    ["2026-10-25T01:30:00Z", "Europe/Berlin", "02:00", "02:59", true, "time_range: 02:30 is inside 02:00-02:59 (Europe/Berlin)"],
    // A range of one minute.
    ["2026-11-22T12:00:30Z", "UTC", "12:00", "12:00", true, "time_range: 12:00 is inside 12:00-12:00 (UTC)"],
    ["2026-11-22T12:01:00Z", "UTC", "12:00", "12:00", false, "time_range: 12:01 is outside 12:00-12:00 (UTC)"],
  ];
  for (const [at, tz, start_time, end_time, pass, reason] of cases) {
    it(`${at} in ${tz}, ${start_time}-${end_time} → ${pass ? "pass" : "hold"}`, async () => {
      const r = await handler(clockCtx(at, tz), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, { start_time, end_time }));
      assert.deepEqual(r, { pass, reason });
    });
  }

  it("defaults to 08:00-22:00", async () => {
    const r = await handler(clockCtx("2026-11-22T23:00:00Z"), { trigger: trigger(), rule_id: 1, negate: true }, configOf(spec, {}));
    assert.deepEqual(r, { pass: false, reason: "time_range: 23:00 is outside 08:00-22:00 (UTC)" });
  });
});
