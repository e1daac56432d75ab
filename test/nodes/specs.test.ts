/**
 * Config rules of the node types with the most of them: good configs pass with their defaults
 * filled in, bad ones fail naming the field, and older config versions migrate.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { checkConfig, migrateConfig } from "../../nodes/_kit/config";
import { sourceNodesDir } from "../../nodes/_build/generate-registry";
import { findSpec } from "../../nodes/_kit/registry-types";
import type { NodeKind, NodeSpec } from "../../nodes/_kit/types";
import { registry } from "../../nodes/registry.generated";

type Config = Record<string, unknown>;
interface Good {
  name: string;
  config: Config;
  /** Keys the parsed config must hold (defaults included). */
  expect: Config;
}
interface Bad {
  name: string;
  config: Config;
  /** The field the problem must name. */
  field: string;
}
interface Table {
  kind: NodeKind;
  type: string;
  good: Good[];
  bad: Bad[];
}

const spec = (kind: NodeKind, type: string): NodeSpec => {
  const s = findSpec(registry, kind, type);
  assert.ok(s, `${kind} ${type} is registered`);
  return s;
};

const tables: Table[] = [
  {
    kind: "step",
    type: "llm_call",
    good: [
      {
        name: "empty config gets the spec's defaults",
        config: {},
        expect: {
          model_id: "",
          include_context: [],
          image_source: "none",
          max_images: 5,
          images_per_sensor: 3,
          sort_by_sensor_then_time: false,
          response_format: "text",
          output_key: "llm_response",
        },
      },
      {
        name: "vision call with additional cameras and a JSON schema",
        config: {
          model_id: "qwen-vl",
          prompt: "Is {{person_detections.0.name}} eating?",
          image_source: "both",
          additional_sensor_ids: ["cam_kitchen", "cam_hall"],
          image_time_filter: { since_minutes: 10 },
          response_format: "json_schema",
          response_json_schema: '{"type":"object","properties":{"eating":{"type":"boolean"}}}',
        },
        expect: { image_source: "both", max_images: 5, output_key: "llm_response", image_time_filter: { since_minutes: 10 } },
      },
      {
        name: "time window by ISO-8601 and by HH:MM",
        config: { image_time_filter: { time_start: "07:30", time_end: "2026-11-22T09:00:00Z" } },
        expect: { image_time_filter: { time_start: "07:30", time_end: "2026-11-22T09:00:00Z" } },
      },
      { name: "json_free needs no schema", config: { response_format: "json_free", output_key: "logic_response" }, expect: { output_key: "logic_response" } },
    ],
    bad: [
      { name: "unknown image_source", config: { image_source: "camera" }, field: "image_source" },
      { name: "unknown response_format", config: { response_format: "yaml" }, field: "response_format" },
      { name: "max_images below 1", config: { max_images: 0 }, field: "max_images" },
      { name: "fractional images_per_sensor", config: { images_per_sensor: 2.5 }, field: "images_per_sensor" },
      { name: "json_schema without a schema", config: { response_format: "json_schema" }, field: "response_json_schema" },
      { name: "schema that is not JSON", config: { response_json_schema: "{type: object" }, field: "response_json_schema" },
      { name: "schema that is not an object", config: { response_json_schema: "[1, 2]" }, field: "response_json_schema" },
      { name: "bad time in the image filter", config: { image_time_filter: { time_start: "7am" } }, field: "image_time_filter.time_start" },
      { name: "unknown key in the image filter", config: { image_time_filter: { since: 5 } }, field: "image_time_filter.since" },
      { name: "empty output_key", config: { output_key: "" }, field: "output_key" },
      { name: "unknown key", config: { temperature: 0.2 }, field: "temperature" },
    ],
  },
  {
    kind: "step",
    type: "interactive_prompt",
    good: [
      {
        name: "empty config asks 'Are you okay?'",
        config: {},
        expect: {
          popup_message_template: "Are you okay?",
          popup_title: "Question for You",
          escalate_button_text: "I need help",
          dismiss_button_text: "I'm okay",
          countdown_seconds: 30,
          timeout_action: "escalate",
          auto_escalate: false,
          output_key: "interactive_response",
        },
      },
      {
        name: "voice-only prompt",
        config: { popup_message_template: "", voice_prompt_template: "Hello {{person_detections.0.name}}, are you alright?" },
        expect: { popup_message_template: "", countdown_seconds: 30 },
      },
      { name: "countdown bounds", config: { countdown_seconds: 5, timeout_action: "dismiss" }, expect: { countdown_seconds: 5, timeout_action: "dismiss" } },
      { name: "countdown upper bound", config: { countdown_seconds: 300 }, expect: { countdown_seconds: 300 } },
    ],
    bad: [
      { name: "neither a popup message nor a voice prompt", config: { popup_message_template: "  " }, field: "popup_message_template" },
      { name: "countdown below 5", config: { countdown_seconds: 4 }, field: "countdown_seconds" },
      { name: "countdown above 300", config: { countdown_seconds: 301 }, field: "countdown_seconds" },
      { name: "fractional countdown", config: { countdown_seconds: 30.5 }, field: "countdown_seconds" },
      { name: "unknown timeout_action", config: { timeout_action: "ignore" }, field: "timeout_action" },
      { name: "empty button text", config: { escalate_button_text: "" }, field: "escalate_button_text" },
      { name: "unknown key", config: { title: "Hi" }, field: "title" },
    ],
  },
  {
    kind: "step",
    type: "verification",
    good: [
      { name: "empty config", config: {}, expect: { conditions: [], match_mode: "all", re_notify_if_failed: false, re_notify_delay_minutes: 5 } },
      {
        name: "condition gets completed and min_confidence defaults",
        config: { conditions: [{ activity_type: "medication", person_id: "{{person_detections.0.person_id}}", within_minutes: 60 }], match_mode: "any" },
        expect: {
          match_mode: "any",
          conditions: [
            { activity_type: "medication", person_id: "{{person_detections.0.person_id}}", within_minutes: 60, completed: true, min_confidence: 0.5 },
          ],
        },
      },
      {
        name: "daily window",
        config: { conditions: [{ activity_type: "eating", completed: false, window_start: "12:00", window_end: "2026-11-22T14:00:00" }] },
        expect: {
          conditions: [{ activity_type: "eating", completed: false, window_start: "12:00", window_end: "2026-11-22T14:00:00", min_confidence: 0.5 }],
        },
      },
    ],
    bad: [
      { name: "condition without activity_type", config: { conditions: [{ person_id: "grandma_rose" }] }, field: "conditions.0.activity_type" },
      { name: "min_confidence above 1", config: { conditions: [{ activity_type: "eating", min_confidence: 1.5 }] }, field: "conditions.0.min_confidence" },
      {
        name: "window_start without window_end",
        config: { conditions: [{ activity_type: "eating", window_start: "12:00" }] },
        field: "conditions.0.window_end",
      },
      {
        name: "window that is not ISO-8601",
        config: { conditions: [{ activity_type: "eating", window_start: "noon", window_end: "14:00" }] },
        field: "conditions.0.window_start",
      },
      { name: "unknown match_mode", config: { match_mode: "most" }, field: "match_mode" },
      { name: "fractional re-notify delay", config: { re_notify_delay_minutes: 2.5 }, field: "re_notify_delay_minutes" },
      { name: "unknown key in a condition", config: { conditions: [{ activity_type: "eating", activity: "x" }] }, field: "conditions.0.activity" },
      { name: "unknown key", config: { mode: "all" }, field: "mode" },
    ],
  },
  {
    kind: "step",
    type: "notification",
    good: [
      { name: "empty config", config: {}, expect: { alert_level: "warning", eink_expiry_minutes: 30, trigger_cooloff: true } },
      {
        name: "explicit channels and templates",
        config: {
          alert_level: "emergency",
          channels: ["chat_app", "eink"],
          chat_app_template: "{{presence_room_name}}: help!",
          webhook_url: "http://10.0.0.5/hook",
        },
        expect: { alert_level: "emergency", channels: ["chat_app", "eink"], trigger_cooloff: true },
      },
      { name: "announcement as a clip", config: { channels: ["announcement"], announcement_mode: "file" }, expect: { announcement_mode: "file" } },
    ],
    bad: [
      { name: "unknown alert_level", config: { alert_level: "critical" }, field: "alert_level" },
      { name: "unknown channel", config: { channels: ["pwa_popup_text", "sms"] }, field: "channels.1" },
      { name: "webhook_url that is not a URL", config: { webhook_url: "not a url" }, field: "webhook_url" },
      { name: "zero expiry", config: { eink_expiry_minutes: 0 }, field: "eink_expiry_minutes" },
      { name: "unknown announcement mode", config: { announcement_mode: "mp3" }, field: "announcement_mode" },
      { name: "unknown key", config: { channel: "eink" }, field: "channel" },
    ],
  },
  {
    kind: "step",
    type: "camera_media_poll",
    good: [
      {
        name: "empty config",
        config: {},
        expect: { sensor_ids: [], room_names: [], since_minutes: 5, images_per_sensor: 3, sensor_frame_limits: {}, max_images: 10, chronological: true },
      },
      {
        name: "per-camera limits",
        config: { room_names: ["Kitchen"], sensor_frame_limits: { cam_kitchen: 6 }, chronological: false },
        expect: { sensor_frame_limits: { cam_kitchen: 6 }, chronological: false, max_images: 10 },
      },
    ],
    bad: [
      { name: "zero since_minutes", config: { since_minutes: 0 }, field: "since_minutes" },
      { name: "images_per_sensor below 1", config: { images_per_sensor: 0 }, field: "images_per_sensor" },
      { name: "fractional max_images", config: { max_images: 1.5 }, field: "max_images" },
      { name: "negative per-camera limit", config: { sensor_frame_limits: { cam_kitchen: -1 } }, field: "sensor_frame_limits.cam_kitchen" },
      { name: "sensor_ids not a list", config: { sensor_ids: "cam_kitchen" }, field: "sensor_ids" },
      { name: "unknown key", config: { limit: 3 }, field: "limit" },
    ],
  },
  {
    kind: "filter",
    type: "dementia_signal",
    good: [
      { name: "empty config", config: {}, expect: { kinds: [], person_ids: [], severity_min: "warning", cooldown_minutes: 30 } },
      {
        name: "kinds and people",
        config: { kinds: ["pacing", "room_revisit_rate", "absence"], person_ids: ["grandma_rose"], severity_min: "emergency", cooldown_minutes: 0 },
        expect: { kinds: ["pacing", "room_revisit_rate", "absence"], severity_min: "emergency", cooldown_minutes: 0 },
      },
      // The spec names `kind` and `min_severity` beside `kinds` and `severity_min`: taken at every gate.
      {
        name: "the spec's spellings kind and min_severity",
        config: { kind: "pacing", min_severity: "info" },
        expect: { kinds: ["pacing"], severity_min: "info" },
      },
    ],
    bad: [
      { name: "kind outside the spec's list", config: { kinds: ["pacing", "fall_suspected"] }, field: "kinds.1" },
      { name: "unknown severity", config: { severity_min: "critical" }, field: "severity_min" },
      { name: "negative cooldown", config: { cooldown_minutes: -1 }, field: "cooldown_minutes" },
      { name: "the spec's spelling `kind` with a kind outside the list", config: { kind: "dancing" }, field: "kinds.0" },
    ],
  },
  {
    kind: "channel",
    type: "tts",
    good: [{ name: "empty config", config: {}, expect: { speed: 1 } }],
    bad: [
      { name: "speed below 0.25", config: { speed: 0.2 }, field: "speed" },
      { name: "speed above 4", config: { speed: 4.5 }, field: "speed" },
      { name: "media_player that is not a media player entity", config: { media_player: "light.kitchen" }, field: "media_player" },
    ],
  },
  {
    kind: "filter",
    type: "day_of_week",
    good: [{ name: "empty config is every day", config: {}, expect: { days: [0, 1, 2, 3, 4, 5, 6] } }],
    bad: [{ name: "day 7", config: { days: [0, 7] }, field: "days.1" }],
  },
];

describe("node config rules", () => {
  for (const t of tables) {
    describe(`${t.kind} ${t.type}`, () => {
      for (const g of t.good) {
        it(`accepts: ${g.name}`, () => {
          const check = checkConfig(spec(t.kind, t.type), g.config);
          assert.ok(check.ok, JSON.stringify(check));
          if (check.ok) for (const [k, v] of Object.entries(g.expect)) assert.deepEqual(check.config[k], v, k);
        });
      }
      for (const b of t.bad) {
        it(`rejects: ${b.name} (names ${b.field})`, () => {
          const check = checkConfig(spec(t.kind, t.type), b.config);
          assert.equal(check.ok, false, `${JSON.stringify(b.config)} was accepted`);
          if (check.ok) return;
          const problem = check.problems.find((p) => p.field === b.field);
          assert.ok(problem, `no problem names ${b.field}: ${JSON.stringify(check.problems)}`);
          assert.ok(problem.message.includes(b.field), problem.message);
        });
      }
    });
  }
});

describe("legacy llm step types", () => {
  const llmCall = spec("step", "llm_call");
  for (const [type, outputKey] of [
    ["vision_analysis", "vision_response"],
    ["logic_reasoning", "logic_response"],
    ["translation", "translation"],
  ] as const) {
    it(`${type} takes llm_call's config, writes ${outputKey} and is replaced by llm_call`, () => {
      const legacy = spec("step", type);
      assert.deepEqual(legacy.deprecated, { replacedBy: "llm_call" });
      assert.deepEqual(Object.keys(legacy.config.shape), Object.keys(llmCall.config.shape));
      const check = checkConfig(legacy, { model_id: "m" });
      assert.ok(check.ok && check.config.output_key === outputKey, JSON.stringify(check));
      assert.equal(checkConfig(legacy, { response_format: "json_schema" }).ok, false);
    });
  }
});

describe("config migrations", () => {
  describe("filter dementia_signal v1 → v2", () => {
    const dementia = spec("filter", "dementia_signal");
    const cases: Array<{ name: string; v1: Config; v2: Config }> = [
      { name: "nothing to rename", v1: {}, v2: {} },
      { name: "kind becomes kinds", v1: { kind: "pacing" }, v2: { kinds: ["pacing"] } },
      { name: "min_severity becomes severity_min", v1: { min_severity: "emergency" }, v2: { severity_min: "emergency" } },
      {
        name: "both aliases, other keys kept",
        v1: { kind: "absence", min_severity: "info", person_ids: ["grandma_rose"], cooldown_minutes: 10 },
        v2: { kinds: ["absence"], severity_min: "info", person_ids: ["grandma_rose"], cooldown_minutes: 10 },
      },
      { name: "kind joins kinds once", v1: { kinds: ["pacing"], kind: "absence" }, v2: { kinds: ["pacing", "absence"] } },
      { name: "kind already in kinds", v1: { kinds: ["absence"], kind: "absence" }, v2: { kinds: ["absence"] } },
      { name: "severity_min wins over its alias", v1: { severity_min: "warning", min_severity: "info" }, v2: { severity_min: "warning" } },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const before = structuredClone(c.v1);
        const migrated = migrateConfig(dementia, c.v1, 1);
        assert.deepEqual(migrated, c.v2);
        assert.deepEqual(c.v1, before, "the migration is pure");
        const step = dementia.migrations?.[1];
        assert.ok(step);
        assert.deepEqual(step(structuredClone(c.v1)), c.v2);
        assert.ok(checkConfig(dementia, migrated).ok, "the migrated config validates");
      });
    }
  });

  describe("step wait v1 → v2 (fixture)", () => {
    const wait = spec("step", "wait");
    // Tests run from dist/; the fixture stays in the source tree beside this file's source.
    const fixture = path.resolve(sourceNodesDir(), "..", "test", "nodes", "steps", "wait", "fixtures", "v1.json");
    const { cases } = JSON.parse(fs.readFileSync(fixture, "utf8")) as { cases: Array<{ v1: Config; v2: Config }> };

    it("has cases", () => assert.ok(cases.length > 0));
    for (const c of cases) {
      it(`migrates ${JSON.stringify(c.v1)}`, () => {
        const check = checkConfig(wait, migrateConfig(wait, c.v1, 1));
        assert.ok(check.ok, JSON.stringify(check));
        if (check.ok) {
          assert.equal(check.config.minutes, undefined, "the alias is gone");
          for (const [k, v] of Object.entries(c.v2)) assert.deepEqual(check.config[k], v, k);
        }
      });
    }
  });
});
