import assert from "node:assert/strict";
import { handler as personActivity } from "../../../../nodes/filters/person_activity/person_activity.handler";
import { spec as personActivitySpec } from "../../../../nodes/filters/person_activity/person_activity.node";
import { handler } from "../../../../nodes/steps/activity_detection/activity_detection.handler";
import { spec } from "../../../../nodes/steps/activity_detection/activity_detection.node";
import type { StepInput } from "../../../../nodes/_kit/handler-types";
import { fromJsonText } from "../../../../runtime/platform/db/json-column";
import { trigger } from "../../handler-context";
import { configOf, MIN, useTrackingDb } from "../../filters/_support/tracking-db";

const input = (pipeline_data: Record<string, unknown>, room_name: string | null = "Kitchen"): StepInput => ({
  pipeline_data,
  idempotency_key: "1:1:0",
  trigger: trigger({ trigger_type: "sensor_event", room_name }),
  step: { id: 3, label: "record", step_type: "activity_detection" },
  execution_id: 42,
  rule_id: 7,
});

interface Row {
  activity_type: string;
  person_id: string | null;
  room_name: string | null;
  confidence: number;
  metadata_json: string;
  rule_id: number;
  execution_id: number;
  timestamp: string;
}

describe("activity_detection step handler", () => {
  const t = useTrackingDb();
  const run = async (config: Record<string, unknown>, data: Record<string, unknown> = {}, room: string | null = "Kitchen") => {
    const r = await handler(t.ctx(), input(data, room), configOf(spec, config));
    const rows: Row[] = await t.db("person_activities").select("*");
    return { r, rows, row: rows[0], metadata: fromJsonText<Record<string, unknown>>(rows[0]?.metadata_json, {}) };
  };

  it("records one activity with templates rendered and returns it", async () => {
    const { r, rows, row } = await run(
      { activity_type: "{{logic_response.activity}}", person_id: "{{person_detections.0.person_id}}", room_name: "{{where}}" },
      { logic_response: { activity: "eating" }, person_detections: [{ person_id: "rose" }], where: "Dining room" },
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(
      { ...row, confidence: Number(row.confidence), rule_id: Number(row.rule_id), execution_id: Number(row.execution_id) },
      {
        ...row,
        activity_type: "eating",
        person_id: "rose",
        room_name: "Dining room",
        confidence: 0.8,
        rule_id: 7,
        execution_id: 42,
        timestamp: "2026-11-22T10:00:00.000Z",
      },
    );
    const detected = r.data?.detected_activities as Array<Record<string, unknown>>;
    assert.equal(detected.length, 1);
    assert.equal(detected[0].activity_type, "eating");
    assert.equal(typeof detected[0].id, "number");
    assert.equal(r.data?._cooloff_triggered, true);
  });

  // [name, config, pipeline_data, trigger room, expected columns]
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string | null, Partial<Row>]> = [
    ["an empty room is the trigger's room", { activity_type: "medication" }, {}, "Bathroom", { room_name: "Bathroom" }],
    ["no room anywhere", { activity_type: "medication" }, {}, null, { room_name: null }],
    ["an empty person is unknown", { activity_type: "medication", person_id: "" }, {}, "Kitchen", { person_id: null }],
    ["a person template rendering empty is unknown", { activity_type: "medication", person_id: "{{nobody}}" }, {}, "Kitchen", { person_id: null }],
    ["a literal confidence", { activity_type: "eating", confidence: 0.65 }, {}, "Kitchen", { confidence: 0.65 }],
    [
      "a confidence template",
      { activity_type: "eating", confidence: "{{logic_response.confidence}}" },
      { logic_response: { confidence: 0.93 } },
      "Kitchen",
      { confidence: 0.93 },
    ],
    ["a confidence template that is no number", { activity_type: "eating", confidence: "{{x}}" }, { x: "high" }, "Kitchen", { confidence: 0.8 }],
    ["a confidence template out of range", { activity_type: "eating", confidence: "{{x}}" }, { x: 85 }, "Kitchen", { confidence: 0.8 }],
  ];
  for (const [name, config, data, room, expected] of cases) {
    it(name, async () => {
      const { row } = await run(config, data, room);
      for (const [k, v] of Object.entries(expected)) assert.equal(k === "confidence" ? Number(row[k]) : row[k as keyof Row], v, k);
    });
  }

  const metadataCases: Array<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]> = [
    ["nothing by default", { activity_type: "eating" }, { vision_response: "Rose eats soup" }, {}],
    [
      "the scene description when asked",
      { activity_type: "eating", capture_scene_description: true },
      { vision_response: "Rose eats soup" },
      { scene_description: "Rose eats soup" },
    ],
    [
      "the scene description from another key",
      { activity_type: "eating", capture_scene_description: true, scene_description_key: "scene.summary" },
      { scene: { summary: "a bowl" } },
      { scene_description: "a bowl" },
    ],
    ["no scene description when the key is missing", { activity_type: "eating", capture_scene_description: true }, {}, {}],
    [
      "metadata_extra rendered and merged",
      { activity_type: "medication", metadata_extra: '{"pill_box": "{{box}}", "count": 2}' },
      { box: "morning" },
      { pill_box: "morning", count: 2 },
    ],
    [
      "both together",
      { activity_type: "medication", capture_scene_description: true, metadata_extra: '{"pill_box": "evening"}' },
      { vision_response: "takes pills" },
      { pill_box: "evening", scene_description: "takes pills" },
    ],
    ["metadata_extra that is not JSON is left out", { activity_type: "medication", metadata_extra: "pill box: morning" }, {}, {}],
    ["metadata_extra that is not an object is left out", { activity_type: "medication", metadata_extra: "[1, 2]" }, {}, {}],
  ];
  for (const [name, config, data, metadata] of metadataCases) {
    it(`metadata: ${name}`, async () => {
      const r = await run(config, data);
      assert.deepEqual(r.metadata, metadata);
      assert.deepEqual((r.r.data?.detected_activities as Array<{ metadata_json: unknown }>)[0].metadata_json, metadata);
    });
  }

  it("does not mark cool-off when trigger_cooloff is off", async () => {
    const { r } = await run({ activity_type: "eating", trigger_cooloff: false });
    assert.equal(r.data?._cooloff_triggered, undefined);
  });

  it("fails without recording when the activity type renders empty", async () => {
    const { r, rows } = await run({ activity_type: "{{missing}}" });
    assert.equal(r.success, false);
    assert.match(r.error ?? "", /activity_type rendered empty/);
    assert.equal(rows.length, 0);
  });

  it("is what the person_activity filter finds afterwards", async () => {
    await run({ activity_type: "medication", person_id: "rose" });
    const ctx = t.ctx();
    ctx.clock.advance(10 * MIN);
    const f = await personActivity(
      ctx,
      { trigger: trigger(), rule_id: 1, negate: false },
      configOf(personActivitySpec, { person_id: "rose", activity_type: "medication" }),
    );
    assert.deepEqual(f, { pass: true, reason: "person_activity: rose had medication 10 min ago (in the last 30 min)" });
  });
});
