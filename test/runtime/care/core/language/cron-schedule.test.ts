import assert from "node:assert/strict";
import { nextCronTime, parseCron } from "../../../../../runtime/care/core/language/cron-schedule";
import { at, iso } from "../pipeline/triggers/trigger-fixture";

/** The next `n` runs after `fromIso`, as ISO strings. */
function runs(expression: string, fromIso: string, n: number, tz = "Europe/Berlin"): string[] {
  const fields = parseCron(expression);
  assert.ok(fields, `${expression} parses`);
  const out: string[] = [];
  let after = at(fromIso);
  for (let i = 0; i < n; i++) {
    const next = nextCronTime(fields, after, tz);
    assert.ok(next !== null);
    out.push(iso(next));
    after = next;
  }
  return out;
}

describe("cron schedule: next run in a time zone", () => {
  it("refuses what node-cron refuses", () => {
    assert.equal(parseCron("61 * * * *"), null);
    assert.equal(parseCron("every morning"), null);
  });

  it("runs a daily job at local time, following the zone's offset through the year", () => {
    assert.deepEqual(runs("0 8 * * *", "2026-03-27T12:00:00Z", 4), [
      "2026-03-28T07:00:00.000Z",
      "2026-03-29T06:00:00.000Z",
      "2026-03-30T06:00:00.000Z",
      "2026-03-31T06:00:00.000Z",
    ]);
    assert.deepEqual(runs("0 8 * * *", "2026-11-21T12:00:00Z", 1, "Asia/Kolkata"), ["2026-11-22T02:30:00.000Z"]);
  });

  it("spring forward (Berlin, 29 March 2026): a 02:30 job runs once at 03:00", () => {
    assert.deepEqual(runs("30 2 * * *", "2026-03-27T12:00:00Z", 3), ["2026-03-28T01:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]);
  });

  it("spring forward: several skipped times of one job and a 03:00 time collapse into one run", () => {
    assert.deepEqual(runs("0,30 2,3 * * *", "2026-03-29T00:00:00Z", 3), ["2026-03-29T01:00:00.000Z", "2026-03-29T01:30:00.000Z", "2026-03-30T00:00:00.000Z"]);
  });

  it("fall back (Berlin, 25 October 2026): a 02:30 job runs once, at the first 02:30", () => {
    assert.deepEqual(runs("30 2 * * *", "2026-10-23T12:00:00Z", 3), ["2026-10-24T00:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
    assert.deepEqual(runs("*/30 2 * * *", "2026-10-24T23:00:00Z", 3), ["2026-10-25T00:00:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-26T01:00:00.000Z"]);
  });

  it("a job that runs every hour keeps running through both passes of the repeated hour, and once across the gap", () => {
    assert.deepEqual(runs("0 * * * *", "2026-10-24T23:30:00Z", 3), ["2026-10-25T00:00:00.000Z", "2026-10-25T01:00:00.000Z", "2026-10-25T02:00:00.000Z"]);
    assert.deepEqual(runs("*/30 * * * *", "2026-10-25T00:40:00Z", 3), ["2026-10-25T01:00:00.000Z", "2026-10-25T01:30:00.000Z", "2026-10-25T02:00:00.000Z"]);
    assert.deepEqual(runs("0 * * * *", "2026-03-29T00:30:00Z", 2), ["2026-03-29T01:00:00.000Z", "2026-03-29T02:00:00.000Z"]);
  });

  it("understands weekdays, last days, nth weekdays and seconds as node-cron does", () => {
    assert.deepEqual(runs("0 9 * * MON", "2026-11-22T12:00:00Z", 2, "UTC"), ["2026-11-23T09:00:00.000Z", "2026-11-30T09:00:00.000Z"]);
    assert.deepEqual(runs("0 9 L * *", "2026-02-01T00:00:00Z", 2, "UTC"), ["2026-02-28T09:00:00.000Z", "2026-03-31T09:00:00.000Z"]);
    assert.deepEqual(runs("0 9 * * 1#2", "2026-11-01T00:00:00Z", 2, "UTC"), ["2026-11-09T09:00:00.000Z", "2026-12-14T09:00:00.000Z"]);
    assert.deepEqual(runs("0 9 * * 5L", "2026-11-01T00:00:00Z", 1, "UTC"), ["2026-11-27T09:00:00.000Z"]);
    assert.deepEqual(runs("0 9 15W * *", "2026-11-01T00:00:00Z", 1, "UTC"), ["2026-11-16T09:00:00.000Z"]); // the 15th is a Sunday
    assert.deepEqual(runs("*/20 * * * * *", "2026-11-22T12:00:05Z", 3, "UTC"), [
      "2026-11-22T12:00:20.000Z",
      "2026-11-22T12:00:40.000Z",
      "2026-11-22T12:01:00.000Z",
    ]);
    assert.deepEqual(runs("0 0 29 2 *", "2026-03-01T00:00:00Z", 1, "UTC"), ["2028-02-29T00:00:00.000Z"]);
  });

  it("is strictly after the given instant", () => {
    assert.deepEqual(runs("0 8 * * *", "2026-11-22T08:00:00Z", 1, "UTC"), ["2026-11-23T08:00:00.000Z"]);
  });
});
