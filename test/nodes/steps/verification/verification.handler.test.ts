import assert from "node:assert/strict";
import { handler } from "../../../../nodes/steps/verification/verification.handler";
import { spec } from "../../../../nodes/steps/verification/verification.node";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { stepInput } from "../../handler-context";
import { configOf, MIN, useTrackingDb, type TrackingDb } from "../../filters/_support/tracking-db";

const NOW = Date.parse("2026-11-22T10:00:00Z"); // 15:30 in Kolkata
type Seed = (t: TrackingDb) => Promise<unknown>;
const act =
  (activity_type: string, person_id: string | null, at: string | number, o: { room_name?: string; confidence?: number } = {}): Seed =>
  (t) =>
    t.seed.activity({ activity_type, person_id, atMs: typeof at === "number" ? NOW - at * MIN : Date.parse(at), ...o });

interface Verification {
  verified: boolean;
  match_mode: string;
  matched_conditions: Array<Record<string, unknown>>;
  unmatched_conditions: Array<Record<string, unknown>>;
  re_notify_at: string | null;
}

describe("verification step handler", () => {
  const t = useTrackingDb();
  const run = async (config: Record<string, unknown>, data: Record<string, unknown> = {}, o: { timezone?: string; now?: number } = {}) => {
    const ctx = t.ctx({ timezone: o.timezone ?? "Asia/Kolkata", clock: new ManualClock(o.now ?? NOW) });
    const r = await handler(ctx, stepInput(data, "verification"), configOf(spec, config));
    return { r, v: r.data?.verification as Verification };
  };
  const med = { activity_type: "medication", person_id: "rose", within_minutes: 60 };

  // [name, seeds, config, pipeline_data, verified]
  const cases: Array<[string, Seed[], Record<string, unknown>, Record<string, unknown>, boolean]> = [
    ["found in the last N minutes", [act("medication", "rose", 30)], { conditions: [med] }, {}, true],
    ["too old for the last N minutes", [act("medication", "rose", 61)], { conditions: [med] }, {}, false],
    ["type compared case-insensitively", [act("Medication", "rose", 30)], { conditions: [med] }, {}, true],
    ["another person's record", [act("medication", "arun", 30)], { conditions: [med] }, {}, false],
    ["empty person means anyone", [act("medication", null, 30)], { conditions: [{ ...med, person_id: "" }] }, {}, true],
    [
      "person from a template",
      [act("medication", "rose", 30)],
      { conditions: [{ ...med, person_id: "{{person_detections.0.person_id}}" }] },
      { person_detections: [{ person_id: "rose" }] },
      true,
    ],
    ["template rendering to another person", [act("medication", "rose", 30)], { conditions: [{ ...med, person_id: "{{who}}" }] }, { who: "arun" }, false],
    ["room, any case", [act("medication", "rose", 30, { room_name: "Kitchen" })], { conditions: [{ ...med, room_name: "kitchen" }] }, {}, true],
    [
      "room from a template, another room",
      [act("medication", "rose", 30, { room_name: "Kitchen" })],
      { conditions: [{ ...med, room_name: "{{trigger_room}}" }] },
      { trigger_room: "Bedroom" },
      false,
    ],
    ["below min_confidence 0.5", [act("medication", "rose", 30, { confidence: 0.4 })], { conditions: [med] }, {}, false],
    ["exactly at min_confidence", [act("medication", "rose", 30, { confidence: 0.7 })], { conditions: [{ ...med, min_confidence: 0.7 }] }, {}, true],
    ["completed false: it did not happen", [], { conditions: [{ ...med, completed: false }] }, {}, true],
    ["completed false: it happened", [act("medication", "rose", 30)], { conditions: [{ ...med, completed: false }] }, {}, false],
    ["all: one of two missing", [act("medication", "rose", 30)], { conditions: [med, { ...med, activity_type: "eating" }] }, {}, false],
    ["any: one of two found", [act("medication", "rose", 30)], { conditions: [med, { ...med, activity_type: "eating" }], match_mode: "any" }, {}, true],
    ["any: none found", [], { conditions: [med, { ...med, activity_type: "eating" }], match_mode: "any" }, {}, false],
    ["no conditions verify nothing", [act("medication", "rose", 30)], { conditions: [] }, {}, false],
    // No window: today since local midnight (Kolkata midnight = 18:30 UTC the day before).
    ["no window: earlier today", [act("eating", "rose", "2026-11-21T19:00:00Z")], { conditions: [{ activity_type: "eating", person_id: "rose" }] }, {}, true],
    ["no window: yesterday", [act("eating", "rose", "2026-11-21T18:00:00Z")], { conditions: [{ activity_type: "eating", person_id: "rose" }] }, {}, false],
  ];
  for (const [name, seeds, config, data, verified] of cases) {
    it(`${name} → ${verified ? "verified" : "not verified"}`, async () => {
      for (const s of seeds) await s(t);
      const { r, v } = await run(config, data);
      assert.equal(v.verified, verified);
      assert.equal(v.match_mode, (config.match_mode as string) ?? "all");
      assert.equal(v.matched_conditions.length + v.unmatched_conditions.length, (config.conditions as unknown[]).length);
      assert.equal(r.wait_until, undefined);
      assert.equal(v.re_notify_at, null);
    });
  }

  it("reports each condition with its rendered fields, window and what was found", async () => {
    await act("medication", "rose", 40)(t);
    await act("medication", "rose", 10)(t);
    const { v } = await run(
      {
        conditions: [
          { ...med, person_id: "{{p}}" },
          { activity_type: "eating", within_minutes: 60 },
        ],
      },
      { p: "rose" },
    );
    assert.deepEqual(v.matched_conditions, [
      {
        activity_type: "medication",
        person_id: "rose",
        room_name: null,
        completed: true,
        min_confidence: 0.5,
        window_from: "2026-11-22T09:00:00.000Z",
        window_to: "2026-11-22T10:00:00.000Z",
        records_found: 2,
        last_seen_at: "2026-11-22T09:50:00.000Z",
        matched: true,
      },
    ]);
    assert.equal(v.unmatched_conditions[0].activity_type, "eating");
    assert.equal(v.unmatched_conditions[0].records_found, 0);
  });

  describe("daily windows re-anchored to today in the household time zone", () => {
    // [name, timezone, now, window_start, window_end, expected window (UTC)]
    const windows: Array<[string, string, number, string, string, [string, string]]> = [
      [
        "an ISO date-time from another day",
        "Asia/Kolkata",
        NOW,
        "2026-01-01T08:00:00",
        "2026-01-01T10:00:00",
        ["2026-11-22T02:30:00.000Z", "2026-11-22T04:30:00.000Z"],
      ],
      ["HH:MM", "Asia/Kolkata", NOW, "08:00", "10:00", ["2026-11-22T02:30:00.000Z", "2026-11-22T04:30:00.000Z"]],
      [
        "an offset is ignored: the time as written counts",
        "Asia/Kolkata",
        NOW,
        "2026-01-01T08:00:00Z",
        "2026-01-01T10:00:00+02:00",
        ["2026-11-22T02:30:00.000Z", "2026-11-22T04:30:00.000Z"],
      ],
      ["the same window in UTC", "UTC", NOW, "08:00", "10:00", ["2026-11-22T08:00:00.000Z", "2026-11-22T10:00:00.000Z"]],
      ["a window still open ends now", "UTC", NOW, "09:00", "12:00", ["2026-11-22T09:00:00.000Z", "2026-11-22T10:00:00.000Z"]],
      ["over midnight, checked in the afternoon: last night", "Asia/Kolkata", NOW, "22:00", "06:00", ["2026-11-21T16:30:00.000Z", "2026-11-22T00:30:00.000Z"]],
      [
        "over midnight, checked late evening: tonight so far",
        "Asia/Kolkata",
        Date.parse("2026-11-22T17:30:00Z"),
        "22:00",
        "06:00",
        ["2026-11-22T16:30:00.000Z", "2026-11-22T17:30:00.000Z"],
      ],
      // Berlin springs forward on 2026-03-29: 01:00 is CET (+1), 04:00 is CEST (+2).
      [
        "across the spring DST change",
        "Europe/Berlin",
        Date.parse("2026-03-29T10:00:00Z"),
        "01:00",
        "04:00",
        ["2026-03-29T00:00:00.000Z", "2026-03-29T02:00:00.000Z"],
      ],
      [
        "the day before the change",
        "Europe/Berlin",
        Date.parse("2026-03-28T10:00:00Z"),
        "01:00",
        "04:00",
        ["2026-03-28T00:00:00.000Z", "2026-03-28T03:00:00.000Z"],
      ],
      [
        "across the autumn change: 02:30 is its first occurrence",
        "Europe/Berlin",
        Date.parse("2026-10-25T10:00:00Z"),
        "02:30",
        "03:00",
        ["2026-10-25T00:30:00.000Z", "2026-10-25T02:00:00.000Z"],
      ],
    ];
    for (const [name, timezone, now, window_start, window_end, [from, to]] of windows) {
      it(name, async () => {
        const { v } = await run({ conditions: [{ activity_type: "sleeping", window_start, window_end }] }, {}, { timezone, now });
        assert.equal(v.unmatched_conditions[0].window_from, from);
        assert.equal(v.unmatched_conditions[0].window_to, to);
      });
    }

    it("finds today's record in the window and not yesterday's or one outside", async () => {
      const c = { conditions: [{ activity_type: "medication", person_id: "rose", window_start: "2026-05-01T08:00:00", window_end: "2026-05-01T10:00:00" }] };
      await act("medication", "rose", "2026-11-21T03:00:00Z")(t); // yesterday 08:30 IST
      await act("medication", "rose", "2026-11-22T05:00:00Z")(t); // today 10:30 IST
      assert.equal((await run(c)).v.verified, false);
      await act("medication", "rose", "2026-11-22T03:00:00Z")(t); // today 08:30 IST
      assert.equal((await run(c)).v.verified, true);
    });

    it("a window later today has found nothing yet", async () => {
      await act("eating", "rose", 5)(t);
      const { v } = await run({ conditions: [{ activity_type: "eating", window_start: "18:00", window_end: "20:00" }] });
      assert.equal(v.verified, false);
      assert.equal(v.unmatched_conditions[0].records_found, 0);
    });

    it("with within_minutes too, uses the overlap", async () => {
      await act("eating", "rose", "2026-11-22T03:00:00Z")(t); // 08:30 IST, 7 hours ago
      const c = (within_minutes: number) => ({ conditions: [{ activity_type: "eating", within_minutes, window_start: "08:00", window_end: "10:00" }] });
      assert.equal((await run(c(60))).v.verified, false);
      assert.equal((await run(c(480))).v.verified, true);
      assert.equal((await run(c(480))).v.matched_conditions[0].window_from, "2026-11-22T02:30:00.000Z");
    });
  });

  describe("re_notify_if_failed", () => {
    const cases: Array<[string, Seed[], Record<string, unknown>, number | undefined, string | null]> = [
      ["failed: waits the delay and says when", [], { re_notify_if_failed: true }, NOW + 5 * MIN, "2026-11-22T10:05:00.000Z"],
      ["failed with a custom delay", [], { re_notify_if_failed: true, re_notify_delay_minutes: 15 }, NOW + 15 * MIN, "2026-11-22T10:15:00.000Z"],
      ["failed with no delay: no wait, re-notify now", [], { re_notify_if_failed: true, re_notify_delay_minutes: 0 }, undefined, "2026-11-22T10:00:00.000Z"],
      ["verified: no wait", [act("medication", "rose", 5)], { re_notify_if_failed: true }, undefined, null],
      ["failed without the option: no wait", [], {}, undefined, null],
    ];
    for (const [name, seeds, config, waitUntil, at] of cases) {
      it(name, async () => {
        for (const s of seeds) await s(t);
        const { r, v } = await run({ conditions: [med], ...config });
        assert.equal(r.wait_until, waitUntil);
        assert.equal(v.re_notify_at, at);
      });
    }
  });
});
