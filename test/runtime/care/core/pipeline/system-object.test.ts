import assert from "node:assert/strict";
import { BASE_DATA_KEYS } from "../../../../../runtime/care/core/language/data-keys";
import { buildSystemObject, ordinal } from "../../../../../runtime/care/core/pipeline/system-object";
import { startOfLocalDay, wallClockInstants } from "../../../../../runtime/platform/core/zoned-time";

const at = (iso: string): number => Date.parse(iso);

describe("system object", () => {
  // system.weather comes from the hub at a run's start (pipeline-data.ts), not from the clock.
  const clockKeys = BASE_DATA_KEYS.filter((k) => k.key.startsWith("system.") && !k.key.startsWith("system.weather"));

  it("produces every system.* data key of the clock, and only those", () => {
    const expected = clockKeys.map((k) => k.key.slice("system.".length)).sort();
    const obj = buildSystemObject(at("2026-09-21T13:35:00Z"), "UTC") as unknown as Record<string, unknown>;
    assert.deepEqual(Object.keys(obj).sort(), expected);
    for (const k of clockKeys) {
      const value = obj[k.key.slice("system.".length)];
      assert.equal(typeof value, k.type === "integer" ? "number" : "string", `${k.key} is ${k.type}`);
    }
  });

  it("localizes in a non-UTC zone (Asia/Kolkata, +05:30): 13:35Z on 21 September is 7:05 PM there", () => {
    assert.deepEqual(buildSystemObject(at("2026-09-21T13:35:00Z"), "Asia/Kolkata"), {
      local_time: "7:05 PM",
      local_time_24h: "19:05",
      local_hour_12h: "7",
      local_hour_24h: "19",
      local_minute: "05",
      local_ampm: "PM",
      local_date: "2026-09-21",
      local_day_of_week: "Monday",
      local_day_of_week_short: "Mon",
      local_day_of_month: 21,
      local_day_ordinal: "21st",
      local_month_name: "September",
      local_month_name_short: "Sep",
      local_month_number: 9,
      local_year: 2026,
      local_date_long: "Monday, 21 September 2026",
      local_date_friendly: "Monday the 21st of September",
      timezone: "Asia/Kolkata",
    });
  });

  it("crosses the local date line before UTC does, and writes midnight and noon as 12", () => {
    const s = buildSystemObject(at("2026-12-31T18:30:00Z"), "Asia/Kolkata");
    assert.equal(s.local_date, "2027-01-01");
    assert.equal(s.local_time, "12:00 AM");
    assert.equal(s.local_time_24h, "00:00");
    assert.equal(s.local_year, 2027);
    assert.equal(s.local_day_ordinal, "1st");
    const noon = buildSystemObject(at("2026-06-15T12:00:00Z"), "UTC");
    assert.equal(noon.local_time, "12:00 PM");
    assert.equal(noon.local_hour_12h, "12");
  });

  it("follows DST in Europe/Berlin: the same UTC hour reads an hour later in summer", () => {
    assert.equal(buildSystemObject(at("2026-03-29T00:59:59Z"), "Europe/Berlin").local_time_24h, "01:59");
    assert.equal(buildSystemObject(at("2026-03-29T01:00:00Z"), "Europe/Berlin").local_time_24h, "03:00");
    assert.equal(buildSystemObject(at("2026-10-25T00:30:00Z"), "Europe/Berlin").local_time, "2:30 AM");
    assert.equal(buildSystemObject(at("2026-10-25T01:30:00Z"), "Europe/Berlin").local_time, "2:30 AM");
    assert.equal(buildSystemObject(at("2026-10-25T02:00:00Z"), "Europe/Berlin").local_time_24h, "03:00");
  });

  it("writes ordinals with English suffixes", () => {
    assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 30, 31].map(ordinal), [
      "1st",
      "2nd",
      "3rd",
      "4th",
      "11th",
      "12th",
      "13th",
      "21st",
      "22nd",
      "23rd",
      "30th",
      "31st",
    ]);
  });

  it("maps wall times to instants across DST: one, two in the repeated hour, none (with the gap's end) in the skipped one", () => {
    const wall = (month: number, day: number, hour: number, minute: number) =>
      wallClockInstants({ year: 2026, month, day, hour, minute, second: 0 }, "Europe/Berlin");
    assert.deepEqual(wall(3, 28, 2, 30), { instants: [at("2026-03-28T01:30:00Z")], gapEnd: null });
    assert.deepEqual(wall(3, 29, 2, 30), { instants: [], gapEnd: at("2026-03-29T01:00:00Z") });
    assert.deepEqual(wall(10, 25, 2, 30), { instants: [at("2026-10-25T00:30:00Z"), at("2026-10-25T01:30:00Z")], gapEnd: null });
  });

  it("finds the start of the local day in the household zone", () => {
    assert.equal(startOfLocalDay(at("2026-11-22T04:00:00Z"), "Asia/Kolkata"), at("2026-11-21T18:30:00Z"));
    assert.equal(startOfLocalDay(at("2026-11-21T18:29:59Z"), "Asia/Kolkata"), at("2026-11-20T18:30:00Z"));
    assert.equal(startOfLocalDay(at("2026-03-29T12:00:00Z"), "Europe/Berlin"), at("2026-03-28T23:00:00Z"));
    assert.equal(startOfLocalDay(at("2026-03-30T12:00:00Z"), "Europe/Berlin"), at("2026-03-29T22:00:00Z"));
    // Where midnight itself is skipped (Asia/Beirut springs forward at 00:00), the day starts at 01:00.
    const beirut = wallClockInstants({ year: 2026, month: 3, day: 29, hour: 0, minute: 0, second: 0 }, "Asia/Beirut");
    assert.deepEqual(beirut.instants, []);
    assert.equal(startOfLocalDay(at("2026-03-29T10:00:00Z"), "Asia/Beirut"), beirut.gapEnd);
  });
});
