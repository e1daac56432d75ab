import assert from "node:assert/strict";
import { startTestApp, type TestApp } from "../../../../support/test-app";

describe("rule validation and the type catalogs", () => {
  let t: TestApp;
  let rule: number;
  before(async () => {
    t = await startTestApp({
      settings: {
        llm: { models: [{ id: "vision-small", api_type: "ollama", base_url: "http://127.0.0.1:11434", model: "llava", capabilities: ["text", "vision"] }] },
      },
    });
    rule = (await t.post("/api/v1/rules", { name: "V", trigger_type: "manual" })).body.id;
  });
  after(() => t.close());

  it("reports a clean rule as valid", async () => {
    await t.post(`/api/v1/rules/${rule}/steps`, { step_type: "condition", label: "c", config_json: { expression: "system.local_hour_24h == '08'" } });
    const res = await t.post(`/api/v1/rules/${rule}/validate`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { valid: true, errors: [], warnings: [] });
  });

  it("warns about an unknown key with its field, position and a suggestion", async () => {
    const res = await t.post(`/api/v1/rules/${rule}/validate`, {
      steps: [{ label: "tell", step_type: "notification", config_json: { message_template: "Seen {{person_detectons.0.name}}" } }],
    });
    assert.equal(res.body.valid, true);
    const w = res.body.warnings[0];
    assert.equal(w.field, "config_json.message_template");
    assert.equal(w.step_label, "tell");
    assert.equal(w.position, 7, "the position of the path inside the template");
    assert.equal(w.suggestion, "person_detections");
  });

  it("reports template, expression, config, required and graph errors", async () => {
    const res = await t.post(`/api/v1/rules/${rule}/validate`, {
      steps: [
        { label: "ask model", step_type: "llm_call", config_json: { model_id: "", prompt: "Look {{ at" } },
        { label: "branch", step_type: "condition", config_json: { expression: "a >" } },
        { label: "other", step_type: "llm_call", config_json: { model_id: "vision-smal", prompt: "hi" } },
      ],
      edges: [{ source_label: "branch", source_port: "maybe", target_label: "ask modle" }],
    });
    assert.equal(res.body.valid, false);
    const messages = res.body.errors.map((e: { field: string; message: string; suggestion?: string }) => `${e.field}|${e.message}|${e.suggestion ?? ""}`);
    assert.ok(
      messages.some((m: string) => m.startsWith("config_json.model_id|model_id: required")),
      messages.join("\n"),
    );
    assert.ok(
      messages.some((m: string) => m.startsWith("config_json.prompt|")),
      "unclosed placeholder",
    );
    assert.ok(res.body.errors.some((e: { field: string; position?: number }) => e.field === "config_json.expression" && typeof e.position === "number"));
    assert.ok(
      messages.some((m: string) => m === "edges.0.target_label|no step is labelled 'ask modle'|ask model"),
      messages.join("\n"),
    );
    assert.ok(messages.some((m: string) => m.startsWith("edges.0.source_port|step 'branch' has no port 'maybe'")));
    assert.ok(res.body.warnings.some((w: { field: string; suggestion?: string }) => w.field === "config_json.model_id" && w.suggestion === "vision-small"));
  });

  it("lists step types with schema, ports, outputs and availability", async () => {
    const res = await t.get("/api/v1/pipeline/step-types");
    const types = res.body.map((s: { type_name: string }) => s.type_name);
    assert.equal(types.length, 21, "16 step types, 3 legacy ones and the knowledge delivery steps (info_card, quiz_start)");
    for (const name of ["person_identification", "llm_call", "condition", "interactive_prompt", "vision_analysis", "translation"])
      assert.ok(types.includes(name), name);
    const cond = res.body.find((s: { type_name: string }) => s.type_name === "condition");
    assert.deepEqual(cond.output_ports, ["true", "false"]);
    assert.equal(cond.category, "flow");
    assert.equal(cond.config_schema.properties.expression.expression, true);
    assert.ok(cond.output_schema.properties["condition.result"]);
    assert.equal(cond.available, true, "condition has its handler");
    const hub = res.body.find((s: { type_name: string }) => s.type_name === "hub_action");
    assert.equal(hub.available, true, "hub_action has its handler (without a hub it answers success=false)");
    // Identification exists (household/identity): the type is available and a rule with it imports.
    const who = res.body.find((s: { type_name: string }) => s.type_name === "person_identification");
    assert.equal(who.available, true);
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Who is there", trigger_type: "manual" },
      steps: [{ label: "who", step_type: "person_identification", schema_version: 1, config: {} }],
    });
    assert.equal(imported.status, 201, imported.text);
    const legacy = res.body.find((s: { type_name: string }) => s.type_name === "logic_reasoning");
    assert.equal(legacy.deprecated, true);
    assert.equal(legacy.replaced_by, "llm_call");
  });

  it("lists the 9 filter types and the 8 channel types", async () => {
    const filters = (await t.get("/api/v1/pipeline/filter-types")).body.map((f: { type_name: string }) => f.type_name).sort();
    assert.deepEqual(filters, [
      "day_of_week",
      "dementia_signal",
      "home_state",
      "person_activity",
      "person_presence",
      "room",
      "room_transition",
      "scene_trend",
      "time_range",
    ]);
    const channels = (await t.get("/api/v1/pipeline/channel-types")).body.map((c: { type_name: string }) => c.type_name).sort();
    assert.deepEqual(channels, ["announcement", "chat_app", "eink", "hub_speaker_tts", "pwa_popup_text", "pwa_realtime_ai", "tts", "webhook"]);
  });

  it("lists every data key: trigger context, trigger_input, system and step outputs", async () => {
    const { body } = await t.get("/api/v1/pipeline/data-keys");
    const keys = body.keys.map((k: { key: string }) => k.key);
    for (const k of [
      "trigger_type",
      "sensor_id",
      "room_name",
      "media_paths",
      "occupancy_duration_minutes",
      "trigger_input.command",
      "trigger_input.from_user",
      "system.local_time",
      "system.local_day_ordinal",
      "system.timezone",
      "person_detections",
      "scene_hazards",
      "verification.verified",
      "notification_dispatched",
      "interactive_response",
      "_cooloff_triggered",
    ]) {
      assert.ok(keys.includes(k), `${k} is listed`);
    }
    assert.equal(body.total, keys.length);
  });
});

describe("rules: validate suggests a step's label for a misspelt step reference", function () {
  this.timeout(20000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("steps.scene_anaylsis_1 → did you mean steps.scene_analysis_1; scene_anaylsis_1 → scene_analysis_1", async () => {
    const id = (await t.post("/api/v1/rules", { name: "Scene", trigger_type: "manual" })).body.id;
    const report = (
      await t.post(`/api/v1/rules/${id}/validate`, {
        steps: [
          { label: "scene_analysis_1", step_type: "condition", config_json: { expression: "true" } },
          {
            label: "tell",
            step_type: "notification",
            config_json: { alert_level: "info", message_template: "{{steps.scene_anaylsis_1.summary}} and {{scene_anaylsis_1}}" },
          },
        ],
      })
    ).body;
    const hints = report.warnings.filter((w: { step_label: string }) => w.step_label === "tell").map((w: { suggestion?: string }) => w.suggestion);
    assert.deepEqual(hints, ["steps.scene_analysis_1", "scene_analysis_1"], JSON.stringify(report.warnings));
  });
});
