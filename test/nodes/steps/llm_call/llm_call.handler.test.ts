import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { handler } from "../../../../nodes/steps/llm_call/llm_call.handler";
import { spec } from "../../../../nodes/steps/llm_call/llm_call.node";
import { openAiParts } from "../../../fakes/openai-chat-server";
import { configOf } from "../../filters/_support/tracking-db";
import { labelOfBase64, labelOfDataUrl, useLlmKit } from "./llm-kit";

const SCHEMA = JSON.stringify({ type: "object", properties: { hazard: { type: "boolean" } }, required: ["hazard"] });

describe("llm_call step handler", () => {
  const kit = useLlmKit();
  const run = async (config: Record<string, unknown>, data: Record<string, unknown> = {}, media: string[] = [], o: Parameters<typeof kit.ctx>[0] = {}) =>
    handler(kit.ctx(o), kit.input(data, media), configOf(spec, { model_id: "text-vllm", prompt: "Hello", ...config }));
  const lastOpenAi = () => kit.openai.requests.at(-1)!;
  const sentText = () => openAiParts(lastOpenAi().body.messages[0]).text;
  const sentImages = () => openAiParts(lastOpenAi().body.messages[0]).images.map(labelOfDataUrl);

  describe("the request", () => {
    it("sends model, one user message and the entry's max_tokens to /v1/chat/completions; writes the text to llm_response", async () => {
      kit.openai.script({ content: "All quiet." });
      const result = await run({ prompt: "Is {{person}} fine?" }, { person: "Rose" });
      assert.deepEqual(result.data, { llm_response: "All quiet." });
      const req = lastOpenAi();
      assert.equal(req.path, "/v1/chat/completions");
      assert.equal(req.body.model, "qwen2.5");
      assert.equal(req.body.max_tokens, 4096, "registry default");
      assert.equal(req.body.guided_json, undefined);
      assert.deepEqual(req.body.messages, [{ role: "user", content: "Is Rose fine?" }]);
      assert.equal(req.authorization, undefined, "no api_key: no Authorization header");
    });

    it("sends the entry's api_key as a bearer token and its max_tokens", async () => {
      await run({ model_id: "vision-vllm" });
      assert.equal(lastOpenAi().authorization, "Bearer sk-test-secret");
      assert.equal(lastOpenAi().body.max_tokens, 512);
    });

    it("prepends special_instructions and renders both as templates", async () => {
      await run(
        { special_instructions: "You watch over {{person}}.", prompt: "It is {{system.local_time}}." },
        { person: "Rose", system: { local_time: "10:00 AM" } },
      );
      assert.equal(sentText(), "You watch over Rose.\n\nIt is 10:00 AM.");
    });

    it("appends the include_context keys as JSON, dotted paths included, absent keys left out", async () => {
      await run({ include_context: ["presence_room_name", "scene.hazards", "missing"] }, { presence_room_name: "Kitchen", scene: { hazards: ["stove"] } });
      assert.equal(sentText(), `Hello\n\nContext (JSON):\n${JSON.stringify({ presence_room_name: "Kitchen", "scene.hazards": ["stove"] }, null, 2)}`);
    });

    it("auto-includes person_detections and vision_response when include_context is empty", async () => {
      await run({}, { person_detections: [{ person_id: "rose" }], other: 1 });
      assert.match(sentText(), /"person_detections": \[/);
      assert.doesNotMatch(sentText(), /vision_response|other/);
      await run({}, { other: 1 });
      assert.equal(sentText(), "Hello", "nothing to add: no context block");
    });

    it("appends response_schema as a format description", async () => {
      await run({ response_schema: "one short sentence" });
      assert.equal(sentText(), "Hello\n\nResponse format: one short sentence");
    });

    it("fails clearly for a model_id the registry does not have", async () => {
      await assert.rejects(run({ model_id: "gpt-9" }), /model 'gpt-9' is not in llm.models/);
      assert.equal(kit.openai.requests.length, 0);
    });
  });

  describe("response formats", () => {
    it("json_schema with a guided-decoding model: guided_json in the body, the schema not in the prompt, the answer parsed", async () => {
      kit.openai.script({ content: '{"hazard": true}' });
      const result = await run({ model_id: "vision-vllm", response_format: "json_schema", response_json_schema: SCHEMA });
      assert.deepEqual(lastOpenAi().body.guided_json, JSON.parse(SCHEMA));
      assert.equal(sentText(), "Hello");
      assert.deepEqual(result.data, { llm_response: { hazard: true } });
    });

    it("json_schema without guided decoding: the schema becomes a prompt instruction", async () => {
      kit.openai.script({ content: '```json\n{"hazard": false}\n```' });
      const result = await run({ response_format: "json_schema", response_json_schema: SCHEMA });
      assert.equal(lastOpenAi().body.guided_json, undefined);
      assert.match(sentText(), /conforms to this JSON Schema/);
      assert.ok(sentText().endsWith(SCHEMA));
      assert.deepEqual(result.data, { llm_response: { hazard: false } }, "a Markdown fence is unwrapped");
    });

    it("json_free parses JSON, also inside a sentence", async () => {
      kit.openai.script({ content: 'Here you are: {"room": "Kitchen", "people": 2} Hope that helps.' });
      assert.deepEqual((await run({ response_format: "json_free" })).data, { llm_response: { room: "Kitchen", people: 2 } });
      assert.match(sentText(), /Answer with only a JSON object/);
    });

    it("json_free with an answer that is not JSON is a step error naming the model", async () => {
      kit.openai.script({ content: "I cannot see anything." });
      await assert.rejects(
        run({ response_format: "json_free" }),
        /model 'text-vllm' \(openai, http:\/\/127\.0\.0\.1:\d+\/v1\) did not answer with JSON \(response_format json_free\): "I cannot see anything\."/,
      );
    });

    it("writes to output_key", async () => {
      kit.openai.script({ content: "Hallo" });
      assert.deepEqual((await run({ output_key: "translation" })).data, { translation: "Hallo" });
    });
  });

  describe("hallucination marker", () => {
    it("asks again while the answer carries the marker (case-insensitive), and keeps the first clean answer", async () => {
      kit.openai.script({ content: "I see a UNICORN" }, { content: "unicorn again" }, { content: "Rose is reading." });
      const result = await run({ model_id: "vision-vllm", hallucination_marker: "unicorn" });
      assert.equal(kit.openai.requests.length, 3);
      assert.deepEqual(result.data, { llm_response: "Rose is reading." });
    });

    it("fails after the model's max_retries retries", async () => {
      kit.openai.fallback = { content: "unicorn" };
      await assert.rejects(run({ model_id: "vision-vllm", hallucination_marker: "unicorn" }), /hallucination marker 'unicorn' on all 3 attempts/);
      assert.equal(kit.openai.requests.length, 3, "1 + max_retries 2");
    });

    it("does not retry without a marker configured", async () => {
      kit.openai.script({ content: "unicorn" });
      await run({});
      assert.equal(kit.openai.requests.length, 1);
    });
  });

  describe("notification_suppressed", () => {
    const cases: Array<[string, Record<string, unknown>, string, Record<string, unknown>]> = [
      [
        "logic_response with is_notification_needed false",
        { output_key: "logic_response", response_format: "json_free" },
        '{"is_notification_needed": false, "reason": "asleep"}',
        { logic_response: { is_notification_needed: false, reason: "asleep" }, notification_suppressed: true },
      ],
      [
        'the text "false" counts',
        { output_key: "logic_response", response_format: "json_free" },
        '{"is_notification_needed": "False"}',
        { logic_response: { is_notification_needed: "False" }, notification_suppressed: true },
      ],
      [
        "true: not suppressed",
        { output_key: "logic_response", response_format: "json_free" },
        '{"is_notification_needed": true}',
        { logic_response: { is_notification_needed: true } },
      ],
      [
        "absent: not suppressed",
        { output_key: "logic_response", response_format: "json_free" },
        '{"user_notification": "Check on Rose"}',
        { logic_response: { user_notification: "Check on Rose" } },
      ],
      [
        "another output_key: not suppressed",
        { output_key: "llm_response", response_format: "json_free" },
        '{"is_notification_needed": false}',
        { llm_response: { is_notification_needed: false } },
      ],
      [
        "a text answer that is JSON still counts",
        { output_key: "logic_response" },
        '{"is_notification_needed": false}',
        { logic_response: '{"is_notification_needed": false}', notification_suppressed: true },
      ],
      [
        "a text answer in prose does not",
        { output_key: "logic_response" },
        "is_notification_needed: false",
        { logic_response: "is_notification_needed: false" },
      ],
    ];
    for (const [name, config, answer, expected] of cases) {
      it(name, async () => {
        kit.openai.script({ content: answer });
        assert.deepEqual((await run(config)).data, expected);
      });
    }
  });

  describe("images", () => {
    it("sends the trigger's media as data URLs after the text, relative paths read from the data directory", async () => {
      const a = kit.image("uploads/a.jpg", "trigger-a");
      const b = path.join(kit.dataDir, kit.image("uploads/b.jpg", "trigger-b"));
      await run({ model_id: "vision-vllm", image_source: "trigger" }, {}, [a, b]);
      const content = lastOpenAi().body.messages[0].content;
      assert.equal(content[0].type, "text");
      assert.deepEqual(sentImages(), ["trigger-a", "trigger-b"]);
    });

    it("skips images silently when the model lacks vision", async () => {
      kit.image("uploads/a.jpg");
      await kit.media("den_cam", "Den", "den-1", 1);
      const result = await run({ model_id: "text-vllm", image_source: "both", additional_sensor_ids: ["den_cam"] }, {}, ["uploads/a.jpg"]);
      assert.equal(result.success, undefined);
      assert.equal(typeof lastOpenAi().body.messages[0].content, "string");
    });

    it("skips missing and non-image files and lets the next candidate take the place", async () => {
      kit.image("uploads/ok.jpg", "ok");
      const notImage = "uploads/notes.txt";
      fs.writeFileSync(path.join(kit.dataDir, notImage), "hello");
      await kit.media("den_cam", "Den", "den-1", 1);
      await run({ model_id: "vision-vllm", image_source: "both", additional_sensor_ids: ["den_cam"], max_images: 2 }, {}, [
        "uploads/gone.jpg",
        notImage,
        "uploads/ok.jpg",
      ]);
      assert.deepEqual(sentImages(), ["ok", "den-1"]);
    });

    it("additional: the newest images_per_sensor of each camera, cameras in list order, oldest first when sorting by sensor", async () => {
      for (const m of [1, 2, 3, 4]) await kit.media("den_cam", "Den", `den-${m}`, m);
      for (const m of [5, 6]) await kit.media("porch_cam", "Porch", `porch-${m}`, m);
      await run({
        model_id: "vision-vllm",
        image_source: "additional",
        additional_sensor_ids: ["porch_cam", "den_cam"],
        images_per_sensor: 2,
        sort_by_sensor_then_time: true,
      });
      assert.deepEqual(sentImages(), ["porch-6", "porch-5", "den-2", "den-1"]);
    });

    it("additional without sorting by sensor: oldest first across cameras", async () => {
      await kit.media("den_cam", "Den", "den-a", 1);
      await kit.media("den_cam", "Den", "den-b", 7);
      await kit.media("porch_cam", "Porch", "porch-a", 4);
      await run({ model_id: "vision-vllm", image_source: "additional", additional_sensor_ids: ["porch_cam", "den_cam"] });
      assert.deepEqual(sentImages(), ["den-b", "porch-a", "den-a"]);
    });

    it("max_images is a hard cap: trigger images first, then the newest additional ones", async () => {
      kit.image("uploads/t.jpg", "trigger");
      for (const m of [1, 2, 3]) await kit.media("den_cam", "Den", `den-${m}`, m);
      for (const m of [4, 5, 6]) await kit.media("porch_cam", "Porch", `porch-${m}`, m);
      await run({ model_id: "vision-vllm", image_source: "both", additional_sensor_ids: ["den_cam", "porch_cam"], max_images: 3 }, {}, ["uploads/t.jpg"]);
      assert.deepEqual(sentImages(), ["trigger", "den-2", "den-1"]);
    });

    it("sort_by_sensor_then_time with the cap: later cameras in the list lose their images first", async () => {
      for (const m of [1, 2]) await kit.media("den_cam", "Den", `den-${m}`, m);
      for (const m of [3, 4]) await kit.media("porch_cam", "Porch", `porch-${m}`, m);
      await run({
        model_id: "vision-vllm",
        image_source: "additional",
        additional_sensor_ids: ["den_cam", "porch_cam"],
        sort_by_sensor_then_time: true,
        max_images: 3,
      });
      assert.deepEqual(sentImages(), ["den-2", "den-1", "porch-4"]);
    });

    it("additional_room_names finds the rooms' cameras (case-insensitive), after the listed ones", async () => {
      await kit.media("den_cam", "Den", "den-1", 1);
      await kit.media("kitchen_cam", "Küche", "kitchen-1", 2);
      await kit.media("other_cam", "Garage", "garage-1", 1);
      await run({
        model_id: "vision-vllm",
        image_source: "additional",
        additional_sensor_ids: ["den_cam"],
        additional_room_names: ["KÜCHE"],
        sort_by_sensor_then_time: true,
      });
      assert.deepEqual(sentImages(), ["den-1", "kitchen-1"]);
    });

    it("image_time_filter since_minutes, and an absolute time_start/time_end", async () => {
      for (const m of [2, 10, 30]) await kit.media("den_cam", "Den", `den-${m}`, m);
      await run({ model_id: "vision-vllm", image_source: "additional", additional_sensor_ids: ["den_cam"], image_time_filter: { since_minutes: 15 } });
      assert.deepEqual(sentImages(), ["den-10", "den-2"]);
      await run({
        model_id: "vision-vllm",
        image_source: "additional",
        additional_sensor_ids: ["den_cam"],
        image_time_filter: { time_start: "2026-11-22T09:25:00Z", time_end: "2026-11-22T09:55:00Z" },
      });
      assert.deepEqual(sentImages(), ["den-30", "den-10"]);
    });

    it("image_time_filter with times of day reads them in app.timezone", async () => {
      // NOW is 10:00 UTC = 11:00 in Berlin; 10:45-10:55 Berlin = 09:45-09:55 UTC.
      for (const m of [2, 10, 30]) await kit.media("den_cam", "Den", `den-${m}`, m);
      await run(
        {
          model_id: "vision-vllm",
          image_source: "additional",
          additional_sensor_ids: ["den_cam"],
          image_time_filter: { time_start: "10:45", time_end: "10:55" },
        },
        {},
        [],
        { timezone: "Europe/Berlin" },
      );
      assert.deepEqual(sentImages(), ["den-10"]);
    });

    it("does not send the same file twice", async () => {
      const rel = await kit.media("hall_cam", "Hall", "hall-1", 1);
      await run({ model_id: "vision-vllm", image_source: "both", additional_sensor_ids: ["hall_cam"] }, {}, [rel]);
      assert.deepEqual(sentImages(), ["hall-1"]);
    });
  });

  describe("over Ollama", () => {
    it("sends /api/chat non-streamed with base64 images, format for guided decoding and num_predict", async () => {
      kit.image("uploads/a.jpg", "trigger-a");
      kit.ollama.script({ content: '{"hazard": false}' });
      const result = await run({ model_id: "llava", image_source: "trigger", response_format: "json_schema", response_json_schema: SCHEMA }, {}, [
        "uploads/a.jpg",
      ]);
      assert.deepEqual(result.data, { llm_response: { hazard: false } });
      const req = kit.ollama.requests[0];
      assert.equal(req.path, "/api/chat");
      assert.equal(req.body.model, "llava:13b");
      assert.equal(req.body.stream, false);
      assert.deepEqual(req.body.format, JSON.parse(SCHEMA));
      assert.deepEqual(req.body.options, { num_predict: 300 });
      assert.equal(req.body.messages[0].role, "user");
      assert.equal(req.body.messages[0].content, "Hello");
      assert.deepEqual(req.body.messages[0].images.map(labelOfBase64), ["trigger-a"]);
    });
  });
});
