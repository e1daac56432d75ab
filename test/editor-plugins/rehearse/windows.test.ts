/** The editor's rehearsal windows on the household's clock: "3 nights" starts at 18:00 three evenings back, also across a clock change. */
import assert from "node:assert/strict";
import { windowStart } from "../../../editor-plugins/rehearse/windows";

const iso = (ms: number) => new Date(ms).toISOString();

describe("rehearsal windows", () => {
  it("24 h and 7 days count back from now", () => {
    const now = Date.parse("2026-11-20T03:00:00Z");
    assert.equal(iso(windowStart("24h", now, "Europe/Berlin")), "2026-11-19T03:00:00.000Z");
    assert.equal(iso(windowStart("7d", now, "Europe/Berlin")), "2026-11-13T03:00:00.000Z");
  });

  it("3 nights: in the morning, from 18:00 three evenings back; in the evening, tonight counts as the third", () => {
    // 04:00 in Berlin on Friday 20 November: the nights of Tuesday, Wednesday and Thursday.
    assert.equal(iso(windowStart("3n", Date.parse("2026-11-20T03:00:00Z"), "Europe/Berlin")), "2026-11-17T17:00:00.000Z");
    // 20:00 on Friday: Wednesday, Thursday and tonight.
    assert.equal(iso(windowStart("3n", Date.parse("2026-11-20T19:00:00Z"), "Europe/Berlin")), "2026-11-18T17:00:00.000Z");
  });

  it("3 nights across the autumn clock change: 18:00 local on each side", () => {
    // Tuesday 27 October 2026, 08:00 in Berlin (UTC+1); the clocks went back on Sunday the 25th.
    assert.equal(iso(windowStart("3n", Date.parse("2026-10-27T07:00:00Z"), "Europe/Berlin")), "2026-10-24T16:00:00.000Z");
  });
});
