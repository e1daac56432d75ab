import assert from "node:assert/strict";
import type { MemoryObservation, ObservationSearch } from "../../../../vocabulary/memory";
import { handler, NO_MEMORY } from "../../../../nodes/steps/semantic_memory_query/semantic_memory_query.handler";
import { spec } from "../../../../nodes/steps/semantic_memory_query/semantic_memory_query.node";
import { configOf } from "../../filters/_support/tracking-db";
import { handlerContext, stepInput, trigger } from "../../handler-context";

const obs = (id: number, hazard_flags: string[] = [], over: Partial<MemoryObservation> = {}): MemoryObservation => ({
  id,
  room_id: "kitchen",
  observed_at: `2026-11-22T09:${String(id).padStart(2, "0")}:00Z`,
  description: `observation ${id}`,
  object_list: ["cup"],
  hazard_flags,
  text_similarity: 0,
  image_similarity: 0,
  ...over,
});

describe("semantic_memory_query step handler", () => {
  const input = (room_name: string | null = "kitchen") => ({ ...stepInput({}, "semantic_memory_query"), trigger: trigger({ room_name }) });

  it("reads the trigger's room: objects, observations, hazards among them, and a summary", async () => {
    const searched: ObservationSearch[] = [];
    const ctx = handlerContext({
      memory: {
        searchObservations: async (q) => (searched.push(q), { ok: true, value: [obs(1, ["stove_on"]), obs(2), obs(3, ["knife_near_edge", "stove_on"])] }),
        recentObjects: async (room, minutes) => ({
          ok: true,
          value: [
            { label: "cup", observation_count: 3, last_seen_at: "2026-11-22T09:00:00Z" },
            { label: "kettle", observation_count: 1, last_seen_at: `2026-11-22T09:30:00Z|${room}|${minutes}` },
            { label: "blur", observation_count: 1, last_seen_at: null, confidence: 0.1 },
          ],
        }),
      },
    });
    const r = await handler(ctx, input(), configOf(spec, { objects_limit: 5, hazards_limit: 1, within_minutes: 30, min_confidence: 0.5 }));
    assert.deepEqual(searched, [{ room_id: "kitchen", since_minutes: 30, limit: 20, min_confidence: 0.5 }]);
    const m = r.data?.memory_context as Record<string, any>;
    assert.deepEqual(
      m.recent_objects.map((o: { label: string }) => o.label),
      ["kettle", "cup"],
      "newest first, the unconfident one left out",
    );
    assert.equal(m.observations_count, 3);
    assert.deepEqual(m.recent_hazards, [
      { id: 1, room_id: "kitchen", observed_at: "2026-11-22T09:01:00Z", hazard_flags: ["stove_on"], description: "observation 1" },
    ]);
    assert.equal(m.summary, "In the past 30 min in kitchen: kettle (1x), cup (3x). 1 hazard(s): stove_on.");
    assert.equal(r.warning, undefined);
  });

  it("room_id overrides the trigger's room; without a room only observations are searched", async () => {
    const rooms: Array<string | null> = [];
    const ctx = handlerContext({ memory: { searchObservations: async (q) => (rooms.push(q.room_id), { ok: true, value: [] }) } });
    const r = await handler(ctx, input(), configOf(spec, { use_trigger_room: false, output_key: "mem" }));
    assert.deepEqual(rooms, [null]);
    assert.deepEqual(r.data, { mem: { recent_objects: [], recent_hazards: [], observations: [], observations_count: 0, summary: NO_MEMORY } });
    await handler(ctx, input(), configOf(spec, { room_id: "lounge", objects_limit: 0 }));
    assert.deepEqual(rooms, [null, "lounge"]);
  });

  it("degrades to empty lists and the spec's summary when the service is unavailable", async () => {
    const ctx = handlerContext({ memory: { searchObservations: async () => ({ ok: false, reason: "semantic memory did not answer within 10 s" }) } });
    const r = await handler(ctx, input(), configOf(spec, {}));
    assert.notEqual(r.success, false);
    assert.deepEqual(r.data, {
      memory_context: { recent_objects: [], recent_hazards: [], observations: [], observations_count: 0, summary: "No memory context available." },
    });
    assert.match(r.warning ?? "", /within 10 s/);
  });
});
