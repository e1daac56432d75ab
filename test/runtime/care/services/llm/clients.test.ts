import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { chat, findModel, ModelServerError, type ChatRequest, type ModelEntry } from "../../../../../runtime/care/services/llm";
import { startFakeOllamaChatServer } from "../../../../fakes/ollama-chat-server";
import { openAiParts, startFakeOpenAiChatServer, type ScriptedServer } from "../../../../fakes/openai-chat-server";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const entry = (over: Record<string, unknown>): ModelEntry =>
  findModel(
    buildSettings({ llm: { models: [{ id: "m", api_type: "openai", base_url: "http://127.0.0.1:1", model: "x", capabilities: ["text"], ...over } as never] } }),
    "m",
  );

const rejectsWith = async (p: Promise<unknown>, check: (e: ModelServerError) => void) => {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ModelServerError, String(err));
    check(err);
    return true;
  });
};

describe("llm chat clients", () => {
  let openai: ScriptedServer;
  let ollama: ScriptedServer;
  before(async () => {
    openai = await startFakeOpenAiChatServer({ models: ["qwen"] });
    ollama = await startFakeOllamaChatServer({ models: ["llava"] });
  });
  after(async () => {
    await openai.close();
    await ollama.close();
  });
  beforeEach(() => {
    openai.reset();
    ollama.reset();
  });

  const kinds = [
    { name: "openai", server: () => openai, model: () => entry({ base_url: openai.baseUrl, model: "qwen" }) },
    { name: "ollama", server: () => ollama, model: () => entry({ api_type: "ollama", base_url: ollama.baseUrl, model: "llava" }) },
  ];

  for (const kind of kinds) {
    describe(`api_type ${kind.name}`, () => {
      const ask = (over: Partial<ChatRequest> = {}, model = kind.model()) => chat({ model, messages: [{ role: "user", text: "hi" }], ...over });

      it("returns the answer text", async () => {
        kind.server().script({ content: "hello there" });
        assert.deepEqual(await ask(), { text: "hello there" });
      });

      it("an error status becomes an error naming the model, the status and the server's message", async () => {
        kind.server().script({ status: 500, error: "CUDA out of memory" });
        await rejectsWith(ask(), (e) => {
          assert.equal(e.failure, "status");
          assert.equal(e.status, 500);
          assert.match(e.message, new RegExp(`^model 'm' \\(${kind.name}, http://127\\.0\\.0\\.1:\\d+(/v1)?\\) answered HTTP 500: CUDA out of memory$`));
        });
        assert.equal(kind.server().requests.length, 1, "no transport retries");
      });

      it("a model the server does not have: its 404", async () => {
        await rejectsWith(ask({}, { ...kind.model(), model: "nope" }), (e) => {
          assert.equal(e.status, 404);
          assert.match(e.message, /answered HTTP 404: .*nope/);
        });
      });

      it("an HTML error page is reported by its text", async () => {
        kind.server().script({ raw: "<html><body>502 Bad Gateway</body></html>", status: 502, contentType: "text/html" });
        await rejectsWith(ask(), (e) => {
          assert.equal(e.status, 502);
          assert.match(e.message, /HTTP 502: .*Bad Gateway/);
        });
      });

      it("a 200 with broken JSON", async () => {
        kind.server().script({ raw: '{"choices": [', status: 200 });
        await rejectsWith(ask(), (e) => {
          assert.equal(e.failure, "bad_response");
          assert.match(e.message, /not valid JSON/);
        });
      });

      it("a 200 without a message", async () => {
        kind.server().script({ raw: '{"unexpected": true}', status: 200 });
        await rejectsWith(ask(), (e) => assert.match(e.message, /answered without a (chat completion |chat )?message/));
      });

      it("the entry's timeout", async () => {
        kind.server().script({ content: "late", delayMs: 1500 });
        const t0 = Date.now();
        await rejectsWith(ask({}, { ...kind.model(), timeout: 0.3 }), (e) => {
          assert.equal(e.failure, "timeout");
          assert.match(e.message, /did not answer within 0\.3 s/);
        });
        assert.ok(Date.now() - t0 < 1200, "gave up at the timeout");
      });

      it("a server that never answers is cut at the timeout too", async () => {
        kind.server().script({ hang: true });
        await rejectsWith(ask({}, { ...kind.model(), timeout: 0.3 }), (e) => assert.equal(e.failure, "timeout"));
      });

      it("the step's signal aborts the request", async () => {
        kind.server().script({ hang: true });
        const ac = new AbortController();
        setTimeout(() => ac.abort(new Error("step timed out")), 100);
        await rejectsWith(ask({ signal: ac.signal }), (e) => assert.equal(e.failure, "aborted"));
      });

      it("an unreachable server", async () => {
        const base = kind.name === "openai" ? `http://127.0.0.1:${await closedPort()}/v1` : `http://127.0.0.1:${await closedPort()}`;
        await rejectsWith(ask({}, { ...kind.model(), base_url: base }), (e) => {
          assert.equal(e.failure, "unreachable");
          assert.match(e.message, /is unreachable/);
        });
      });
    });
  }

  it("openai: images as image_url parts (bytes as data URLs, URLs as they are), guided_json in the body", async () => {
    await chat({
      model: entry({ base_url: openai.baseUrl, model: "qwen", api_key: "k-123" }),
      messages: [
        { role: "system", text: "be brief" },
        { role: "user", text: "look", images: [{ mime: "image/png", data: PNG }, { url: "http://cam.local/x.jpg" }] },
      ],
      max_tokens: 77,
      guided_json: { type: "object" },
    });
    const { body, authorization } = openai.requests[0];
    assert.equal(authorization, "Bearer k-123");
    assert.equal(body.max_tokens, 77);
    assert.deepEqual(body.guided_json, { type: "object" });
    assert.deepEqual(body.messages[0], { role: "system", content: "be brief" });
    assert.deepEqual(openAiParts(body.messages[1]), { text: "look", images: [`data:image/png;base64,${PNG.toString("base64")}`, "http://cam.local/x.jpg"] });
  });

  it("ollama: images as a base64 list, api_key as a bearer token", async () => {
    await chat({
      model: entry({ api_type: "ollama", base_url: ollama.baseUrl, model: "llava", api_key: "k-9" }),
      messages: [{ role: "user", text: "look", images: [{ mime: "image/png", data: PNG }] }],
    });
    const { body, authorization } = ollama.requests[0];
    assert.equal(authorization, "Bearer k-9");
    assert.deepEqual(body.messages, [{ role: "user", content: "look", images: [PNG.toString("base64")] }]);
    assert.deepEqual(body.options, { num_predict: 4096 });
    assert.equal(body.format, undefined);
  });
});
