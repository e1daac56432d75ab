/**
 * The knowledge embedder with two instances on the machine's PostgreSQL (one ManualClock): it
 * runs on the `knowledge-embedder` holder only, which embeds a document added through the other
 * instance within its 5 s look, each chunk once; when the holder dies the survivor takes over
 * and embeds what is added next.
 */
import assert from "node:assert/strict";
import { createDocument, getDocument } from "../../../../../runtime/care/services/knowledge/documents/documents.service";
import { startKnowledgeIndexing } from "../../../../../runtime/care/services/knowledge/documents/indexing";
import { embedderIdle } from "../../../../../runtime/care/services/knowledge/retrieval";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../../fakes/openai-chat-server";
import { sharedPg, type SharedPg } from "../../../../support/pg-cluster";
import { kill, moveTo, startInstance, type Instance } from "../../../../support/cluster-instances";
import { startTestApp, type TestApp } from "../../../../support/test-app";

describe("knowledge embedder under a lease, two instances", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  let fake: ScriptedServer;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-22T10:00:00Z"));
  let a: Instance;
  let b: Instance;
  const stops: Array<() => Promise<void>> = [];

  before(async function () {
    pg = await sharedPg(this);
    fake = await startFakeOpenAiChatServer();
    fake.embeddings.dim = 32;
    t = await startTestApp({
      clock,
      settings: {
        llm: { models: [{ id: "embed", api_type: "openai", base_url: fake.baseUrl, model: "e", capabilities: ["embedding"] }] },
        knowledge: { embedding_model: "embed" },
        embedding: { dim: 32 },
      },
    });
    a = await startInstance(pg, t.app.ctx, clock, "a");
    b = await startInstance(pg, t.app.ctx, clock, "b");
    for (const i of [a, b]) {
      stops.push(startKnowledgeIndexing(i.ctx));
      i.settle = () => embedderIdle(i.ctx);
    }
    await moveTo(clock, clock.now(), [a, b]);
  });
  after(async () => {
    for (const stop of stops) await stop().catch(() => undefined);
    for (const i of [a, b]) await i?.leases.stop().catch(() => undefined);
    await t?.close();
    await fake?.close();
    await pg?.drop();
  });

  const roles = (): [Instance, Instance] => (a.leases.holds("knowledge-embedder") ? [a, b] : [b, a]);
  const embedCalls = (): number => fake.requests.filter((r) => r.path.includes("embed")).length;
  const add = async (i: Instance, title: string): Promise<number> =>
    (await createDocument(i.ctx, "test", { title, source_text: `${title}: Anna comes for lunch on Sundays with the children.` }, [])).id;

  it("embeds a document added through the other instance once, on the holder", async () => {
    const [, other] = roles();
    const before = embedCalls();
    const id = await add(other, "Sundays");
    assert.equal((await getDocument(other.ctx, id)).embedding_model, null, "the other instance embeds nothing");
    await moveTo(clock, clock.now() + 5000, [a, b]);
    assert.equal((await getDocument(other.ctx, id)).embedding_model, "embed");
    assert.equal(embedCalls() - before, 1, "one call for its one chunk");
    await moveTo(clock, clock.now() + 20_000, [a, b]);
    assert.equal(embedCalls() - before, 1, "and not again");
  });

  it("embeds on the survivor after the holder dies", async () => {
    const [holder, other] = roles();
    await kill(holder);
    const before = embedCalls();
    const id = await add(other, "Mondays");
    await moveTo(clock, clock.now() + 10_000, [a, b]);
    assert.ok(other.leases.holds("knowledge-embedder"));
    assert.equal((await getDocument(other.ctx, id)).embedding_model, "embed");
    assert.equal(embedCalls() - before, 1);
  });
});
