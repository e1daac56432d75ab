/**
 * Asking the repository over HTTP: the words find the right passage, only approved documents
 * answer, vectors from the fake embedding model find what the words cannot (and rank), a
 * changed embedding model re-embeds, the answer model writes the answer from the passages or
 * says it does not know, `query_knowledge_base` through the REST mirror, and every question
 * is logged with how it was answered.
 */
import assert from "node:assert/strict";
import type { SettingsInput } from "../../../../../settings";
import { createApp } from "../../../../../runtime/app/app";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { createLogger } from "../../../../../runtime/platform/core/logger";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../../fakes/openai-chat-server";
import { startFakeOllamaChatServer } from "../../../../fakes/ollama-chat-server";
import { eventually } from "../../../../support/eventually";
import { migratedDatabase } from "../../../../support/test-db";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../../support/test-app";
import { makeDocument } from "./knowledge-support";

const DOCS = "/api/v1/knowledge/documents";
const NO_INFO = "I don't have that information.";

const HEATER = [
  "The new heater is in the living room, under the window.",
  "To switch the heater on, press the red button once. It clicks and the light turns orange.",
  "To switch the heater off, hold the red button for three seconds until the light goes out.",
].join("\n\n");
const FAMILY = [
  "Anna is your daughter. She visits every Sunday afternoon with the children.",
  "Tom is your son. He lives in Hamburg and calls on Fridays.",
].join("\n\n");

const ask = (t: TestApp, query: string, key: string = KEYS.caregiver) => t.post("/api/v1/knowledge/query", { query }, key);

describe("knowledge retrieval: words only, no models", function () {
  this.timeout(30_000);
  let t: TestApp;
  let heater: any;

  before(async () => {
    t = await startTestApp({ settings: { knowledge: { chunk_size_tokens: 30, chunk_overlap_tokens: 0 } } });
    heater = await makeDocument(t, "The heater", HEATER, "home", true);
    await makeDocument(t, "Family", FAMILY, "family", true);
  });
  after(() => t?.close());

  it("finds the passage that answers, and without an answer model the best passage is the answer", async () => {
    const res = await ask(t, "How do I switch off the heater?");
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.found, true);
    assert.equal(res.body.answered_via, "passage");
    assert.equal(res.body.answer, "To switch the heater off, hold the red button for three seconds until the light goes out.");
    assert.deepEqual(res.body.source_document_ids.slice(0, 1), [heater.id]);
    const first = res.body.passages[0];
    assert.deepEqual([first.document_id, first.document_title], [heater.id, "The heater"]);
    assert.ok(first.score > 0);
    assert.ok(res.body.passages.length <= 8, "retrieval_top_k");

    const family = await ask(t, "When does Anna visit?");
    assert.match(family.body.answer, /^Anna is your daughter/);
  });

  it("says it does not have the information when nothing written matches", async () => {
    const res = await ask(t, "What is the wifi password?");
    assert.equal(res.status, 200);
    assert.deepEqual(
      { answer: res.body.answer, found: res.body.found, via: res.body.answered_via, sources: res.body.source_document_ids, passages: res.body.passages },
      { answer: NO_INFO, found: false, via: "none", sources: [], passages: [] },
    );
  });

  it("searches approved documents only: not before approval, not once archived", async () => {
    const doc = await makeDocument(t, "Pharmacy", "The pharmacy on Lindenstrasse delivers the blister packs on Mondays.");
    assert.equal((await ask(t, "Who delivers the blister packs?")).body.found, false, "chunked, not approved");
    await t.post(`${DOCS}/${doc.id}/approve`);
    const found = await ask(t, "Who delivers the blister packs?");
    assert.equal(found.body.found, true);
    assert.deepEqual(found.body.source_document_ids, [doc.id]);
    await t.post(`${DOCS}/${doc.id}/archive`);
    assert.equal((await ask(t, "Who delivers the blister packs?")).body.found, false, "archived");
  });

  it("answers query_knowledge_base through the REST mirror with a reading key, and logs every question", async () => {
    const res = await t.post("/api/v1/mcp/tools/query_knowledge_base", { query: "how do I turn the heater on" }, KEYS.mcp);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ["answer", "found", "source_document_ids"]);
    assert.equal(res.body.found, true);
    assert.match(res.body.answer, /press the red button once/);
    assert.deepEqual(res.body.source_document_ids, [heater.id]);
    const bad = await t.post("/api/v1/mcp/tools/query_knowledge_base", { query: "" }, KEYS.mcp);
    assert.equal(bad.status, 422);
    const voice = await t.get("/api/v1/mcp/tools?set=voice", KEYS.mcp);
    assert.ok(voice.body.tools.map((tool: any) => tool.name).includes("query_knowledge_base"), "in the voice subset by default");

    const log = await t.get("/api/v1/knowledge-interactions/queries", KEYS.caregiver);
    assert.equal(log.status, 200);
    const last = log.body.items[0];
    assert.equal(last.query_text, "how do I turn the heater on");
    assert.equal(last.channel, "mcp");
    assert.equal(last.answered_via, "passage");
    assert.ok(last.source_chunk_ids.length > 0);
    assert.ok(last.latency_ms >= 0);
    assert.ok(log.body.items.some((q: any) => q.channel === "editor"));
    const none = await t.get("/api/v1/knowledge-interactions/queries?answered_via=none");
    assert.ok(none.body.items.length > 0 && none.body.items.every((q: any) => q.answered_via === "none"));
    const wifi = await t.get("/api/v1/knowledge-interactions/queries?q=WIFI");
    assert.deepEqual(
      wifi.body.items.map((q: any) => q.query_text),
      ["What is the wifi password?"],
    );
    const today = new Date().toISOString().slice(0, 10);
    assert.equal((await t.get(`/api/v1/knowledge-interactions/queries?date=${today}`)).body.total, log.body.total);
    assert.equal((await t.get("/api/v1/knowledge-interactions/queries?date=2001-01-01")).body.total, 0);
    const badDate = await t.get("/api/v1/knowledge-interactions/queries?date=yesterday");
    assert.equal(badDate.status, 422);
    assert.match(badDate.body.detail, /date/);
    const badVia = await t.get("/api/v1/knowledge-interactions/queries?answered_via=magic");
    assert.equal(badVia.status, 422);
    assert.match(badVia.body.detail, /answered_via/);
  });

  it("refuses an empty question naming the field", async () => {
    const res = await t.post("/api/v1/knowledge/query", { query: "  " });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /query/);
  });
});

const DIM = 64;
const embeddingSettings = (fake: ScriptedServer, ollama: ScriptedServer, model = "embed-a"): SettingsInput => ({
  llm: {
    models: [
      { id: "embed-a", api_type: "openai", base_url: fake.baseUrl, model: "bge-a", capabilities: ["embedding"] },
      { id: "embed-b", api_type: "ollama", base_url: ollama.baseUrl, model: "bge-b", capabilities: ["embedding"] },
      { id: "chat", api_type: "openai", base_url: fake.baseUrl, model: "qwen", capabilities: ["text"] },
    ],
  },
  knowledge: { embedding_model: model, chunk_size_tokens: 30, chunk_overlap_tokens: 0, min_similarity: 0.55 },
  embedding: { dim: DIM, batch_size: 2 },
});

// Words the lexical side drops (all stop words but "kettle", which no chunk has): only vectors can find these.
const CHAT = "What is it that you have to do with it when it is on?";
const HALF = "You have to do it on the table.";
const KETTLE_QUESTION = "what is it that you have to do with the kettle when it is on";

describe("knowledge retrieval: vectors from an embedding model, and an answer model", function () {
  this.timeout(40_000);
  let fake: ScriptedServer;
  let ollama: ScriptedServer;

  before(async () => {
    fake = await startFakeOpenAiChatServer();
    fake.embeddings.dim = DIM;
    ollama = await startFakeOllamaChatServer();
    ollama.embeddings.dim = DIM;
  });
  after(async () => {
    await fake?.close();
    await ollama?.close();
  });

  const embeddedWith = (t: TestApp, id: number, model: string) =>
    eventually(`document ${id} embedded with ${model}`, async () => (await t.get(`${DOCS}/${id}`)).body.embedding_model === model);

  it("embeds chunks in the background in batches, and the vectors find and rank what the words cannot", async () => {
    const t = await startTestApp({ settings: embeddingSettings(fake, ollama) });
    try {
      const a = await makeDocument(t, "Chat", CHAT, "", true);
      const b = await makeDocument(t, "Half", HALF, "", true);
      const c = await makeDocument(t, "Heater", HEATER, "", true);
      for (const d of [a, b, c]) await embeddedWith(t, d.id, "embed-a");
      const batches = fake.requests.filter((r) => r.path === "/v1/embeddings" && Array.isArray(r.body.input));
      assert.ok(
        batches.every((r) => r.body.input.length <= 2),
        "embedding.batch_size",
      );
      const chunks = await t.get(`${DOCS}/${c.id}/chunks`);
      assert.ok(chunks.body.items.every((ch: any) => ch.embedded && ch.embedding_model === "embed-a"));

      const res = await ask(t, KETTLE_QUESTION);
      assert.equal(res.body.found, true, res.text);
      assert.deepEqual(
        res.body.passages.map((p: any) => p.document_id),
        [a.id, b.id],
        "nearest first; the heater is below min_similarity",
      );
      const detail = await t.get(`${DOCS}/${a.id}`);
      assert.deepEqual(detail.body.embedding, { model: "embed-a", state: "idle", error: null });

      // Archived: its vectors are no longer searched, even by the index built before.
      await t.post(`${DOCS}/${a.id}/archive`);
      const after = await ask(t, KETTLE_QUESTION);
      assert.deepEqual(
        after.body.passages.map((p: any) => p.document_id),
        [b.id],
      );
    } finally {
      await t.close();
    }
  });

  it("finds nothing for the same question by words alone", async () => {
    const t = await startTestApp({ settings: { knowledge: { chunk_size_tokens: 30, chunk_overlap_tokens: 0 } } });
    try {
      await makeDocument(t, "Chat", CHAT, "", true);
      assert.equal((await ask(t, KETTLE_QUESTION)).body.found, false);
    } finally {
      await t.close();
    }
  });

  it("re-embeds every chunk when the embedding model changes (after a restart with the new setting)", async () => {
    const db = await migratedDatabase();
    const log = createLogger("silent");
    const start = async (model: string) => {
      const settings = buildSettings({ auth: testAuthSettings(), ...embeddingSettings(fake, ollama, model) });
      const app = await createApp({
        config: { port: 0, dataDir: db.dataDir, databaseUrl: db.databaseUrl, settingsFile: undefined, settings },
        log,
        nodeRed: false,
      });
      const port = await app.listen(0, "127.0.0.1");
      const baseUrl = `http://127.0.0.1:${port}`;
      const request = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(baseUrl + path, {
          method,
          headers: { "x-api-key": KEYS.admin, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any, text: "" };
      };
      return { app, request };
    };
    try {
      const first = await start("embed-a");
      const created = await first.request("POST", DOCS, { title: "Chat", source_text: CHAT });
      await first.request("POST", `${DOCS}/${created.body.id}/approve`);
      await eventually("embedded with a", async () => (await first.request("GET", `${DOCS}/${created.body.id}`)).body.embedding_model === "embed-a");
      await first.app.close();

      ollama.reset();
      ollama.embeddings.dim = DIM;
      const second = await start("embed-b");
      try {
        await eventually("embedded with b", async () => (await second.request("GET", `${DOCS}/${created.body.id}`)).body.embedding_model === "embed-b");
        assert.ok(ollama.requests.some((r) => r.path === "/api/embed" && r.body.model === "bge-b"));
        const chunks = await second.request("GET", `${DOCS}/${created.body.id}/chunks`);
        assert.ok(chunks.body.items.every((c: any) => c.embedding_model === "embed-b"));
        const res = await second.request("POST", "/api/v1/knowledge/query", { query: KETTLE_QUESTION });
        assert.equal(res.body.found, true);
      } finally {
        await second.app.close();
      }
    } finally {
      await db.drop();
    }
  });

  it("says a model whose vectors have the wrong size, and stores none; the words still answer", async () => {
    fake.embeddings.dim = 32;
    const t = await startTestApp({ settings: embeddingSettings(fake, ollama) });
    try {
      const doc = await makeDocument(t, "Heater", HEATER, "", true);
      const state = await eventually("the embedder failing", async () => {
        const d = (await t.get(`${DOCS}/${doc.id}`)).body;
        return d.embedding.state === "failing" && d.embedding;
      });
      assert.match(state.error, /returns vectors of 32 dimensions but embedding\.dim is 64/);
      const chunks = await t.get(`${DOCS}/${doc.id}/chunks`);
      assert.ok(chunks.body.items.every((c: any) => !c.embedded));
      const res = await ask(t, "How do I switch off the heater?");
      assert.equal(res.body.found, true);
      assert.match(res.body.answer, /hold the red button/);
    } finally {
      fake.embeddings.dim = DIM;
      await t.close();
    }
  });

  it("writes the answer with the answer model from the passages only, or says it does not know", async () => {
    fake.reset();
    fake.embeddings.dim = DIM;
    const settings = embeddingSettings(fake, ollama);
    settings.knowledge = { ...settings.knowledge, embedding_model: null, answer_model: "chat" };
    const t = await startTestApp({ settings });
    try {
      const heater = await makeDocument(t, "The heater", HEATER, "", true);
      fake.script({ content: "Hold the red button for three seconds." });
      const res = await ask(t, "How do I switch off the heater?");
      assert.deepEqual(
        { answer: res.body.answer, found: res.body.found, via: res.body.answered_via, sources: res.body.source_document_ids },
        { answer: "Hold the red button for three seconds.", found: true, via: "model", sources: [heater.id] },
      );
      const sent = fake.requests.find((r) => r.path === "/v1/chat/completions")!;
      assert.equal(sent.body.model, "qwen");
      assert.match(sent.body.messages[0].content, /ONLY the passages/);
      assert.match(sent.body.messages[1].content, /hold the red button for three seconds until the light goes out/i);
      assert.match(sent.body.messages[1].content, /Question: How do I switch off the heater\?/);

      fake.script({ content: NO_INFO });
      const unknown = await ask(t, "Is the heater under warranty?");
      assert.deepEqual([unknown.body.answer, unknown.body.found, unknown.body.answered_via, unknown.body.source_document_ids], [NO_INFO, false, "model", []]);

      // Nothing found: the model is not asked at all.
      const before = fake.requests.length;
      assert.equal((await ask(t, "What is the wifi password?")).body.answer, NO_INFO);
      assert.equal(fake.requests.length, before);

      // A model that fails: the best passage answers.
      fake.script({ status: 500, error: "boom" });
      const fallback = await ask(t, "How do I switch off the heater?");
      assert.equal(fallback.body.answered_via, "passage");
      assert.match(fallback.body.answer, /hold the red button/);
    } finally {
      await t.close();
    }
  });
});
