/** When the daily health message is due: the local time each day, across the clocks changing. */
import assert from "node:assert/strict";
import { nextDueAfter } from "../../../../../runtime/care/services/health-report/report-job";

const BERLIN = "Europe/Berlin";
const next = (hhmm: string, fromIso: string) => new Date(nextDueAfter(hhmm, BERLIN, Date.parse(fromIso))).toISOString();

describe("the daily health message's time", () => {
  it("09:00 local on each day, through spring forward and fall back (23 and 25 hour days)", () => {
    assert.equal(next("09:00", "2026-03-28T08:00:00Z"), "2026-03-29T07:00:00.000Z", "Saturday 09:00 CET, then Sunday 09:00 CEST");
    assert.equal(next("09:00", "2026-10-24T07:00:00Z"), "2026-10-25T08:00:00.000Z", "Saturday 09:00 CEST, then Sunday 09:00 CET");
  });

  it("later the same day when the time is still to come; the next day once it has passed", () => {
    assert.equal(next("09:00", "2026-06-01T06:59:00Z"), "2026-06-01T07:00:00.000Z");
    assert.equal(next("09:00", "2026-06-01T07:00:00Z"), "2026-06-02T07:00:00.000Z");
  });

  it("a time the clocks skip goes out when the gap ends; a repeated one once, at its first", () => {
    assert.equal(next("02:30", "2026-03-28T12:00:00Z"), "2026-03-29T01:00:00.000Z", "03:00 CEST, the end of the gap");
    assert.equal(next("02:30", "2026-10-24T12:00:00Z"), "2026-10-25T00:30:00.000Z", "the first 02:30 (CEST)");
  });
});
