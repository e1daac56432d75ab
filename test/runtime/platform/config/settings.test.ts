import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SettingsError, buildSettings, loadRunConfig } from "../../../../runtime/platform/config/load-settings";

const tmpFile = (name: string, text: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-settings-"));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

describe("settings", () => {
  it("fills every default from settings.ts", () => {
    const s = buildSettings({});
    assert.equal(s.app.timezone, "UTC");
    assert.equal(s.image.refresh_window_minutes, 60);
    assert.equal(s.notifications.webhook.timeout_seconds, 10);
    assert.equal(s.notifications.eink.default_expiry_minutes, 30);
    assert.equal(s.pipeline.step_timeout_seconds, 60);
  });

  it("declares every setting the spec names, with the spec's defaults", () => {
    const s = buildSettings({});
    assert.deepEqual(s.aggregator, { enabled: true, batch_size: 5, window_seconds: 10, cooldown_seconds: 30, media_retention_hours: 24 });
    assert.equal(s.recognition.threshold, 0.4);
    assert.deepEqual(s.hub, {
      url: null,
      token: null,
      poll_seconds: 30,
      bathroom_time_limit_minutes: 20,
      allowed_services: [
        "light.*",
        "switch.*",
        "media_player.*",
        "input_text.*",
        "input_boolean.*",
        "input_number.*",
        "input_select.*",
        "input_button.*",
        "notify.*",
      ],
      media_player: null,
      speakers: {},
      weather_entity: null,
    });
    assert.equal(s.knowledge.chunk_size_tokens, 400);
    assert.equal(s.knowledge.min_similarity, 0.55);
    assert.equal(s.knowledge.max_upload_bytes, 15728640);
    assert.deepEqual(s.embedding, { dim: 768, max_seq_len: 2048, batch_size: 16 });
    assert.deepEqual(s.scene_analysis, { enabled: false, url: "http://127.0.0.1:8100", timeout_seconds: 30 });
    assert.deepEqual(s.semantic_memory, { enabled: false, url: "http://127.0.0.1:8300", timeout_seconds: 10 });
    assert.equal(s.llm.vision, null);
  });

  it("accepts a settings file using the spec's setting names", () => {
    const file = tmpFile(
      "settings.json",
      JSON.stringify({
        aggregator: { batch_size: 8 },
        recognition: { threshold: 0.5 },
        scene_analysis: { enabled: true, url: "http://scene.local:8100" },
        semantic_memory: { enabled: true, url: "http://memory.local:8300", timeout_seconds: 5 },
        llm: { vision: null, realtime: { provider: "gemini_live" } },
        knowledge: { retrieval_top_k: 4 },
        embedding: { dim: 1024 },
        hub: { bathroom_time_limit: 25 },
      }),
    );
    const s = loadRunConfig({ CAREFLOW_SETTINGS: file }).settings;
    assert.equal(s.aggregator.batch_size, 8);
    assert.equal(s.aggregator.window_seconds, 10);
    assert.equal(s.scene_analysis.url, "http://scene.local:8100");
    assert.equal(s.semantic_memory.timeout_seconds, 5);
    assert.equal(s.llm.vision, null, "null, as old files carry it, is not set");
    assert.equal(s.hub.bathroom_time_limit, 25);
  });

  it("merges the example of the run contract over the defaults", () => {
    const s = buildSettings({
      app: { timezone: "Europe/Berlin" },
      auth: {
        api_keys: [{ key: "k1234567", name: "ops", permissions: ["admin"] }],
        device_keys: [{ key: "CAM00001", sensor_id: "kitchen_cam", device_type: "camera_device", permissions: ["device:camera"] }],
      },
      cameras: { kitchen_cam: { rotate: 90 } },
    });
    assert.equal(s.app.timezone, "Europe/Berlin");
    assert.equal(s.app.log_level, "info", "siblings keep their defaults");
    assert.equal(s.cameras.kitchen_cam.rotate, 90);
    assert.equal(s.auth.device_keys[0].sensor_id, "kitchen_cam");
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["an unknown top-level key", { apps: {} }, /apps: unknown field/],
    ["an unknown nested key", { app: { timezone: "UTC", colour: 1 } }, /app\.colour: unknown field/],
    ["a bad timezone", { app: { timezone: "Mars/Olympus" } }, /app\.timezone: not an IANA time zone name/],
    ["a malformed device key", { auth: { device_keys: [{ key: "cam1", sensor_id: "c", device_type: "camera_device" }] } }, /auth\.device_keys\.0\.key/],
    ["an unknown device type", { auth: { device_keys: [{ key: "CAM00001", sensor_id: "c", device_type: "toaster" }] } }, /auth\.device_keys\.0\.device_type/],
    ["a bad rotation", { cameras: { c1: { rotate: 45 } } }, /cameras\.c1\.rotate/],
    ["a model without api_type", { llm: { models: [{ id: "m", base_url: "http://h:1/v1", model: "x", capabilities: ["text"] }] } }, /llm\.models\.0\.api_type/],
    ["a negative refresh window", { image: { refresh_window_minutes: -1 } }, /image\.refresh_window_minutes/],
    ["an unknown fallback route", { notifications: { fallback: { order: ["chat_app", "sms"] } } }, /notifications\.fallback\.order\.1/],
    [
      "a hub notify that is no notify service",
      { notifications: { fallback: { hub_notify_service: "light.on" } } },
      /notifications\.fallback\.hub_notify_service/,
    ],
    // The legacy settings nothing reads are refused, naming what replaced them (docs/decisions.md).
    [
      "llm.vision",
      { llm: { vision: { provider: "openai", model: "llava" } } },
      /llm\.vision: careflow does not read llm\.vision: add the model to llm\.models .*vision_analysis/,
    ],
    ["llm.logic", { llm: { logic: { model: "llama3" } } }, /llm\.logic: .*llm\.models.*logic_reasoning/],
    ["llm.translation", { llm: { translation: { model: "nllb" } } }, /llm\.translation: .*llm\.models.*translation/],
    ["tts.default_style", { tts: { default_style: "calm" } }, /tts\.default_style: .*tts\.default_voice/],
    [
      "a chunk longer than the embedding model reads",
      {
        llm: { models: [{ id: "emb", api_type: "ollama", base_url: "http://h:1", model: "nomic", capabilities: ["embedding"] }] },
        knowledge: { embedding_model: "emb", chunk_size_tokens: 600 },
        embedding: { max_seq_len: 512 },
      },
      /knowledge\.chunk_size_tokens: 600 is more than embedding\.max_seq_len \(512\)/,
    ],
  ];
  for (const [what, raw, message] of bad) {
    it(`refuses ${what}, naming the key`, () => {
      assert.throws(
        () => buildSettings(raw),
        (err: Error) => err instanceof SettingsError && message.test(err.message),
      );
    });
  }

  it("refuses the same key value twice", () => {
    assert.throws(
      () =>
        buildSettings({
          auth: {
            api_keys: [
              { key: "same-key-1", name: "a", permissions: ["admin"] },
              { key: "same-key-1", name: "b", permissions: ["caregiver"] },
            ],
          },
        }),
      /used twice/,
    );
  });

  it("reads a YAML settings file and adds the three role keys from the environment", () => {
    const file = tmpFile("settings.yaml", "app:\n  timezone: Asia/Kolkata\nimage:\n  refresh_window_minutes: 0\n");
    const config = loadRunConfig({
      CAREFLOW_SETTINGS: file,
      CAREFLOW_ADMIN_KEY: "env-admin-key-1",
      CAREFLOW_CAREGIVER_KEY: "env-care-key-1",
      CAREFLOW_MCP_KEY: "env-mcp-key-01",
      PORT: "9123",
      CAREFLOW_DATA_DIR: "/tmp/cf-data",
    });
    assert.equal(config.settings.app.timezone, "Asia/Kolkata");
    assert.equal(config.settings.image.refresh_window_minutes, 0);
    assert.equal(config.port, 9123);
    assert.equal(config.dataDir, "/tmp/cf-data");
    assert.deepEqual(
      config.settings.auth.api_keys.map((k) => k.permissions[0]),
      ["admin", "caregiver", "mcp_readonly"],
    );
  });

  it("reads a JSON settings file and names a file that does not parse", () => {
    const good = tmpFile("s.json", JSON.stringify({ app: { name: "rose-home" } }));
    assert.equal(loadRunConfig({ CAREFLOW_SETTINGS: good }).settings.app.name, "rose-home");
    const broken = tmpFile("s.json", "{ not json");
    assert.throws(() => loadRunConfig({ CAREFLOW_SETTINGS: broken }), /CAREFLOW_SETTINGS: .*does not parse/);
    assert.throws(() => loadRunConfig({ CAREFLOW_SETTINGS: "/nonexistent/careflow.yaml" }), /CAREFLOW_SETTINGS: cannot read/);
  });

  it("refuses a PORT that is not a port", () => {
    assert.throws(() => loadRunConfig({ PORT: "eighty" }), /PORT/);
  });

  it("takes the chat bot's token from CAREFLOW_CHAT_TOKEN unless the settings name one; polling against the public Bot API by default", () => {
    const s = loadRunConfig({ CAREFLOW_CHAT_TOKEN: "123:abc" }).settings.notifications.chat_app;
    assert.equal(s.token, "123:abc");
    assert.equal(s.mode, "polling");
    assert.equal(s.api_base_url, "https://api.telegram.org");
    assert.deepEqual(s.commands, ["status", "where", "checkin"]);
    assert.equal(loadRunConfig({}).settings.notifications.chat_app.token, null);
  });
});
