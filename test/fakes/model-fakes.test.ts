import assert from "node:assert/strict";
import { buildSettings } from "../../runtime/platform/config/load-settings";
import { chat, findModel, ModelServerError, type ModelEntry } from "../../runtime/care/services/llm";
import { embedTexts } from "../../runtime/care/services/knowledge/retrieval/embeddings.client";
import { RemoteEngine } from "../../tts/engines/remote-engine";
import { startFakeOllamaChatServer } from "./ollama-chat-server";
import { startFakeOpenAiChatServer, type ScriptedServer } from "./openai-chat-server";
import { startFakeSpeechServer, type FakeSpeechServer } from "./openai-speech-server";

// The language-model fakes refuse what the real services refuse: careflow's own clients must
// pass their checks, and a malformed body must get the real service's 400.

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };

const entry = (over: Record<string, unknown>): ModelEntry =>
  findModel(
    buildSettings({
      llm: { models: [{ id: "m", api_type: "openai", base_url: "http://127.0.0.1:1", model: "qwen", capabilities: ["text"], ...over } as never] },
    }),
    "m",
  );

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as unknown };
};

/** Everything careflow's chat client puts in a request: system and user text, images both ways, a token limit, a schema. */
const fullChat = (model: ModelEntry) =>
  chat({
    model,
    messages: [
      { role: "system", text: "be brief" },
      { role: "user", text: "look", images: [{ mime: "image/png", data: PNG }] },
      { role: "assistant", text: "a door" },
      { role: "user", text: "and now?" },
    ],
    max_tokens: 77,
    guided_json: SCHEMA,
  });

describe("language-model fakes are as strict as the real services", () => {
  describe("OpenAI-style chat and embeddings (vLLM)", () => {
    let server: ScriptedServer;
    before(async () => (server = await startFakeOpenAiChatServer()));
    after(() => server.close());
    beforeEach(() => server.reset());

    it("careflow's chat and embeddings requests pass its checks", async () => {
      assert.deepEqual(await fullChat(entry({ base_url: server.baseUrl })), { text: "ok" });
      await chat({ model: entry({ base_url: server.baseUrl }), messages: [{ role: "user", text: "hi" }] });
      const vectors = await embedTexts(entry({ base_url: server.baseUrl, model: "nomic" }), ["one", "two"], 768);
      assert.equal(vectors.length, 2);
      assert.deepEqual(server.refusals, []);
      assert.deepEqual(
        server.requests.map((r) => r.path),
        ["/v1/chat/completions", "/v1/chat/completions", "/v1/embeddings"],
      );
    });

    const good = { model: "qwen", messages: [{ role: "user", content: "hi" }] };
    const malformed: Array<[string, Record<string, unknown>, { message: RegExp; param: string | null; code: string | null }]> = [
      ["an unknown field", { ...good, temprature: 0.2 }, { message: /^Unrecognized request argument supplied: temprature$/, param: null, code: null }],
      ["no model", { messages: good.messages }, { message: /^Missing required parameter: 'model'\.$/, param: "model", code: "missing_required_parameter" }],
      ["no messages", { ...good, messages: [] }, { message: /empty array/, param: "messages", code: "empty_array" }],
      [
        "a role it does not know",
        { ...good, messages: [{ role: "bot", content: "hi" }] },
        { message: /^Invalid value: 'bot'/, param: "messages[0].role", code: "invalid_value" },
      ],
      [
        "content that is a number",
        { ...good, messages: [{ role: "user", content: 5 }] },
        { message: /number/, param: "messages[0].content", code: "invalid_type" },
      ],
      [
        "an image part without a url",
        { ...good, messages: [{ role: "user", content: [{ type: "image_url", image_url: {} }] }] },
        { message: /Missing required parameter/, param: "messages[0].content[0].image_url.url", code: "missing_required_parameter" },
      ],
      ["a temperature above 2", { ...good, temperature: 2.5 }, { message: /<= 2, but got 2\.5/, param: "temperature", code: "decimal_above_max_value" }],
      ["max_tokens 0", { ...good, max_tokens: 0 }, { message: />= 1/, param: "max_tokens", code: "decimal_below_min_value" }],
      [
        "a json_schema format without its name",
        { ...good, response_format: { type: "json_schema", json_schema: { schema: SCHEMA } } },
        { message: /Missing required parameter/, param: "response_format.json_schema.name", code: "missing_required_parameter" },
      ],
      ["stream as text", { ...good, stream: "yes" }, { message: /expected boolean, but got a string/, param: "stream", code: "invalid_type" }],
    ];
    for (const [what, body, expected] of malformed) {
      it(`answers ${what} with OpenAI's 400 and records the refusal`, async () => {
        server.script({ content: "not this" });
        const res = await post(`${server.baseUrl}/chat/completions`, body);
        assert.equal(res.status, 400);
        const error = (res.body as { error: Record<string, unknown> }).error;
        assert.deepEqual(Object.keys(error).sort(), ["code", "message", "param", "type"]);
        assert.equal(error.type, "invalid_request_error");
        assert.match(String(error.message), expected.message);
        assert.equal(error.param, expected.param);
        assert.equal(error.code, expected.code);
        assert.equal(server.refusals.length, 1);
        assert.equal(server.refusals[0].message, error.message);
        // A refused request does not use up the script's reply.
        assert.deepEqual((await post(`${server.baseUrl}/chat/completions`, good)).status, 200);
        assert.equal(
          ((await post(`${server.baseUrl}/chat/completions`, good)).body as { choices: Array<{ message: { content: string } }> }).choices[0].message.content,
          "ok",
        );
      });
    }

    it("refuses an embeddings request without input as OpenAI does", async () => {
      const res = await post(`${server.baseUrl}/embeddings`, { model: "nomic" });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        error: { message: "Missing required parameter: 'input'.", type: "invalid_request_error", param: "input", code: "missing_required_parameter" },
      });
      assert.equal(server.refusals.length, 1);
    });
  });

  describe("OpenAI itself (dialect openai)", () => {
    let server: ScriptedServer;
    before(async () => (server = await startFakeOpenAiChatServer({ dialect: "openai" })));
    after(() => server.close());

    it("takes careflow's request without a schema, and refuses vLLM's guided_json as OpenAI does", async () => {
      await chat({ model: entry({ base_url: server.baseUrl }), messages: [{ role: "user", text: "hi", images: [{ mime: "image/png", data: PNG }] }] });
      assert.deepEqual(server.refusals, []);
      await assert.rejects(fullChat(entry({ base_url: server.baseUrl })), (err: unknown) => {
        assert.ok(err instanceof ModelServerError);
        assert.equal(err.status, 400);
        assert.match(err.message, /Unrecognized request argument supplied: guided_json$/);
        return true;
      });
      assert.equal(server.refusals.length, 1);
    });
  });

  describe("Ollama chat and embed", () => {
    let server: ScriptedServer;
    before(async () => (server = await startFakeOllamaChatServer()));
    after(() => server.close());
    beforeEach(() => server.reset());

    it("careflow's chat and embed requests pass its checks", async () => {
      const model = entry({ api_type: "ollama", base_url: server.baseUrl, model: "llava" });
      assert.deepEqual(await fullChat(model), { text: "ok" });
      assert.equal((await embedTexts(model, ["one"], 768)).length, 1);
      assert.deepEqual(server.refusals, []);
      const sent = server.requests[0].body as { messages: Array<{ images?: string[] }>; format: unknown; options: unknown };
      assert.deepEqual(sent.messages[1].images, [PNG.toString("base64")]);
      assert.deepEqual(sent.format, SCHEMA);
    });

    const good = { model: "llava", messages: [{ role: "user", content: "hi" }], stream: false };
    const malformed: Array<[string, Record<string, unknown>, RegExp]> = [
      ["no model", { messages: good.messages, stream: false }, /^model is required$/],
      ["messages that are not a list", { ...good, messages: "hi" }, /^json: cannot unmarshal a string into Go struct field \.messages of type array$/],
      [
        "an image that is not base64",
        { ...good, messages: [{ role: "user", content: "x", images: ["not base64!"] }] },
        /^illegal base64 data in messages\[0\]\.images\[0\]$/,
      ],
      ["a format that is neither json nor a schema", { ...good, format: "yaml" }, /^invalid format/],
      ["options that are not an object", { ...good, options: 5 }, /cannot unmarshal a number into Go struct field \.options/],
    ];
    for (const [what, body, message] of malformed) {
      it(`answers ${what} with Ollama's 400 {"error": ...} and records the refusal`, async () => {
        const res = await post(`${server.baseUrl}/api/chat`, body);
        assert.equal(res.status, 400);
        const error = (res.body as { error: unknown }).error;
        assert.equal(typeof error, "string");
        assert.match(String(error), message);
        assert.equal(Object.keys(res.body as object).length, 1);
        assert.equal(server.refusals.length, 1);
      });
    }

    it("ignores a field it does not know, as Ollama's server does", async () => {
      assert.equal((await post(`${server.baseUrl}/api/chat`, { ...good, something_new: true })).status, 200);
      assert.deepEqual(server.refusals, []);
    });
  });

  describe("OpenAI speech", () => {
    let server: FakeSpeechServer;
    before(async () => (server = await startFakeSpeechServer({ secondsPerChar: 0.005 })));
    after(() => server.close());

    it("the TTS service's remote engine's requests pass its checks", async () => {
      const engine = new RemoteEngine(
        {
          engine: "svara",
          url: server.baseUrl,
          model: "svara-tts",
          voices: [{ id: "priya", language: "hi" }],
          sampleRate: 24000,
          nativeStreaming: true,
          streamChunkBytes: 10080,
        },
        5000,
      );
      for (const stream of [true, false]) {
        const voice = engine.resolveVoice("priya", "hi");
        let bytes = 0;
        for await (const chunk of await engine.start({ text: "नमस्ते", voice, speed: 1.25, stream, signal: AbortSignal.timeout(5000) })) bytes += chunk.length;
        assert.ok(bytes > 0);
      }
      assert.deepEqual(server.refusals, []);
      assert.equal(server.speeches.length, 2);
    });

    const good = { model: "tts-1", input: "hello", voice: "alloy", response_format: "pcm" };
    const malformed: Array<[string, Record<string, unknown>, { param: string | null; code: string | null }]> = [
      ["an input past 4096 characters", { ...good, input: "a".repeat(4097) }, { param: "input", code: "string_above_max_length" }],
      ["an empty input", { ...good, input: "" }, { param: "input", code: "string_below_min_length" }],
      ["no voice", { model: "tts-1", input: "hello" }, { param: "voice", code: "missing_required_parameter" }],
      ["a format it does not make", { ...good, response_format: "ogg" }, { param: "response_format", code: "invalid_value" }],
      ["a speed above 4", { ...good, speed: 4.5 }, { param: "speed", code: "decimal_above_max_value" }],
      ["a speed below 0.25", { ...good, speed: 0.2 }, { param: "speed", code: "decimal_below_min_value" }],
      ["an unknown field", { ...good, pitch: 2 }, { param: null, code: null }],
    ];
    for (const [what, body, expected] of malformed) {
      it(`answers ${what} with OpenAI's 400 and records the refusal`, async () => {
        const before = server.refusals.length;
        const res = await post(`${server.baseUrl}/audio/speech`, body);
        assert.equal(res.status, 400);
        const error = (res.body as { error: Record<string, unknown> }).error;
        assert.equal(error.type, "invalid_request_error");
        assert.equal(error.param, expected.param);
        assert.equal(error.code, expected.code);
        assert.equal(server.refusals.length, before + 1);
      });
    }
  });
});
