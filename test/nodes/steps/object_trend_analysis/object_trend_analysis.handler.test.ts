import assert from "node:assert/strict";
import type { MemoryRoomTrend } from "../../../../vocabulary/memory";
import { handler } from "../../../../nodes/steps/object_trend_analysis/object_trend_analysis.handler";
import { spec } from "../../../../nodes/steps/object_trend_analysis/object_trend_analysis.node";
import { configOf } from "../../filters/_support/tracking-db";
import { handlerContext, stepInput, trigger } from "../../handler-context";

const trend = (room: string, over: Partial<MemoryRoomTrend> = {}): MemoryRoomTrend => ({
  room_id: room,
  room_name: null,
  clutter_score: 2.14,
  trend_direction: "rising",
  overall_severity: "warning",
  persistent_objects: ["laundry basket"],
  novel_objects: ["box"],
  anomalies: [
    { kind: "clutter", severity: "warning" },
    { kind: "small", severity: "ok" },
  ],
  ...over,
});

describe("object_trend_analysis step handler", () => {
  const input = (room_name: string | null = "kitchen") => ({ ...stepInput({}, "object_trend_analysis"), trigger: trigger({ room_name }) });

  it("reads the trigger's room, strips anomalies below the threshold and summarises", async () => {
    const asked: string[] = [];
    const ctx = handlerContext({ memory: { roomTrend: async (room) => (asked.push(room), { ok: true, value: trend(room) }) } });
    const r = await handler(ctx, input(), configOf(spec, {}));
    assert.deepEqual(asked, ["kitchen"]);
    assert.deepEqual(r.data, {
      room_trends: {
        kitchen: {
          clutter_score: 2.14,
          trend_direction: "rising",
          overall_severity: "warning",
          persistent_objects: ["laundry basket"],
          novel_objects: ["box"],
          anomalies: [{ kind: "clutter", severity: "warning" }],
        },
      },
      room_trends_any_warning: true,
      room_trends_max_severity: "warning",
      room_trends_summary: "kitchen: WARNING clutter (z=2.1, rising trend) | Persistent: laundry basket | Novel: box",
    });
    assert.equal(r.warning, undefined);
  });

  it("reads the named rooms under its output_key, with snapshots when asked, and skips a room without a trend", async () => {
    const ctx = handlerContext({
      memory: {
        roomTrend: async (room) => ({ ok: true, value: room === "hall" ? null : trend(room, { overall_severity: "info" }) }),
        snapshots: async (_room, hours) => ({
          ok: true,
          value: [{ period_start: `${hours}h`, unique_object_count: 3, object_counts: {}, persistent_objects: [], novel_objects: [], embedding_variance: 0 }],
        }),
      },
    });
    const r = await handler(ctx, input(null), configOf(spec, { room_ids: ["lounge", "hall"], include_snapshots_hours: 6, output_key: "trends" }));
    const trends = r.data?.trends as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(trends), ["lounge"]);
    assert.equal((trends.lounge.snapshots as Array<{ period_start: string }>)[0].period_start, "6h");
    assert.equal(r.data?.trends_any_warning, false);
    assert.equal(r.data?.trends_max_severity, "info");
  });

  it("writes empty results with the reason when semantic memory is unavailable", async () => {
    const ctx = handlerContext({ memory: { roomTrend: async () => ({ ok: false, reason: "semantic memory at http://x is unreachable: ECONNREFUSED" }) } });
    const r = await handler(ctx, input(), configOf(spec, {}));
    assert.notEqual(r.success, false);
    assert.deepEqual(r.data, {
      room_trends: {},
      room_trends_any_warning: false,
      room_trends_max_severity: "ok",
      room_trends_summary: "No trend data available.",
    });
    assert.match(r.warning ?? "", /ECONNREFUSED/);
  });

  it("writes empty results when there is no room to read", async () => {
    const r = await handler(handlerContext(), input(null), configOf(spec, {}));
    assert.deepEqual(r.data?.room_trends, {});
    assert.match(r.warning ?? "", /no room/);
  });
});
