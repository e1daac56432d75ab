/**
 * What happens later, on the app's clock: the media sweep keeps a document's photos for as long
 * as the document names them (and removes them after), and an embedding model that fails is
 * tried again until the vectors are made, the document searchable by words all along.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { objectPath, sweepExpired } from "../../../../../runtime/household/media/media.service";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../../fakes/openai-chat-server";
import { eventually } from "../../../../support/eventually";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { makeDocument, png, sendForm } from "./knowledge-support";

const DOCS = "/api/v1/knowledge/documents";

describe("knowledge in the background", function () {
  this.timeout(30_000);
  let fake: ScriptedServer;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-20T09:00:00Z"));

  before(async () => {
    fake = await startFakeOpenAiChatServer();
    fake.embeddings.dim = 32;
    t = await startTestApp({
      clock,
      settings: {
        llm: { models: [{ id: "embed", api_type: "openai", base_url: fake.baseUrl, model: "e", capabilities: ["embedding"] }] },
        knowledge: { embedding_model: "embed" },
        embedding: { dim: 32 },
        aggregator: { media_retention_hours: 1 },
      },
    });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  it("keeps a document's photos through the media sweep, and lets them go with the document", async () => {
    const res = await sendForm(t, "POST", DOCS, { title: "Garden", source_text: "The roses are by the fence." }, [
      { field: "images", bytes: await png(12, 12, 77) },
    ]);
    assert.equal(res.status, 201, res.text);
    const objectName: string = res.body.images[0].object_name;
    const file = path.join(t.app.ctx.dataDir, objectPath(objectName));
    clock.advance(3 * 3_600_000);
    await sweepExpired(t.app.ctx);
    assert.ok(fs.existsSync(file), "kept while the document names it");
    const url = (await t.get(`${DOCS}/${res.body.id}`)).body.images[0].url;
    assert.equal((await fetch(t.baseUrl + url)).status, 200);

    assert.equal((await t.request("DELETE", `${DOCS}/${res.body.id}`)).status, 204);
    clock.advance(5 * 60_000);
    await sweepExpired(t.app.ctx);
    assert.ok(!fs.existsSync(file), "swept once nothing names it");
  });

  it("tries a failing embedding model again later; the document answers by words meanwhile", async () => {
    fake.embeddings.failWith = 503;
    const doc = await makeDocument(t, "Bins", "The bins go out on Tuesday evening.", "", true);
    const failing = await eventually("the embedder failing", async () => {
      const d = (await t.get(`${DOCS}/${doc.id}`)).body;
      return d.embedding.state === "failing" && d.embedding;
    });
    assert.match(failing.error, /model 'embed' .* answered HTTP 503/);
    const asked = await t.post("/api/v1/knowledge/query", { query: "When do the bins go out?" });
    assert.equal(asked.body.found, true, "by words");
    assert.equal((await t.get(`${DOCS}/${doc.id}`)).body.embedding_model, null);

    fake.embeddings.failWith = null;
    clock.advance(30_000);
    await eventually("embedded after the retry", async () => (await t.get(`${DOCS}/${doc.id}`)).body.embedding_model === "embed");
    assert.deepEqual((await t.get(`${DOCS}/${doc.id}`)).body.embedding, { model: "embed", state: "idle", error: null });
  });
});
