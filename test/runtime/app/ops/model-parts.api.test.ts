/**
 * Each configured model server is a part (issue 44 §1), over real HTTP with the fake
 * OpenAI-style server and a ManualClock: ok when it answers the check; stopped, it is late at
 * the next check with the reason and down at the one after; a real call that fails marks it
 * down at once and one that answers ok at once; it is checked at most once per 5 minutes; a
 * household without models has no model part.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { SAMPLE_EVERY_MS, type PartView } from "../../../../runtime/platform/health/parts-board";
import { CHECK_EVERY_MS } from "../../../../runtime/platform/health/endpoint-part";
import { modelPartId } from "../../../../runtime/app/ops/service-parts";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../fakes/openai-chat-server";
import { makeDocument } from "../../care/services/knowledge/knowledge-support";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const MINUTE = 60_000;

describe("model servers as parts", function () {
  this.timeout(30000);
  let fake: ScriptedServer;
  let port: number;
  let t: TestApp;
  let bare: TestApp;
  let docId: number;
  const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));

  const part = async (app: TestApp = t): Promise<PartView | undefined> => {
    const res = await app.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.parts.find((p) => p.kind === "model");
  };
  /** Moves the clock tick by tick, each tick's round of checks done. */
  const pass = async (ms: number) => {
    for (let done = 0; done < ms; done += SAMPLE_EVERY_MS) {
      clock.advance(SAMPLE_EVERY_MS);
      await t.app.ctx.parts?.sampled();
    }
  };
  const suggest = () => t.request("POST", "/api/v1/info-cards/suggest", { body: { document_id: docId, layout_id: "single_hero" }, key: KEYS.caregiver });

  before(async () => {
    fake = await startFakeOpenAiChatServer();
    port = Number(new URL(fake.baseUrl).port);
    t = await startTestApp({
      clock,
      settings: {
        llm: { models: [{ id: "author", name: "qwen", api_type: "openai", base_url: fake.baseUrl, model: "qwen-7b", capabilities: ["text"], timeout: 5 }] },
        knowledge: { authoring_model: "author" },
      },
    });
    bare = await startTestApp({ clock: new ManualClock(Date.parse("2026-03-02T08:00:00Z")) });
    docId = (await makeDocument(t, "The heater", "Turn the knob to 3 when you are cold.", "", true)).id;
    await t.app.ctx.parts?.sampled();
  });
  after(async () => {
    await Promise.all([t?.close(), bare?.close(), fake?.close()]);
  });

  it("a configured model server that answers is ok, named for people", async () => {
    const p = await part();
    assert.ok(p, "a model part");
    assert.equal(p.id, modelPartId(fake.baseUrl));
    assert.equal(p.name, `Language model (qwen at 127.0.0.1:${port})`);
    assert.equal(p.state, "ok");
    assert.ok(fake.checks.length >= 1, "checked at /v1/models");
    assert.equal(fake.checks[0].path, "/v1/models");
  });

  it("stopped: late at the next check with the reason, down at the one after; back: ok at the next check", async () => {
    await fake.close();
    await pass(CHECK_EVERY_MS);
    let p = await part();
    assert.equal(p?.state, "late");
    assert.match(p?.detail ?? "", /connection refused/);
    await pass(CHECK_EVERY_MS);
    p = await part();
    assert.equal(p?.state, "down");
    assert.match(p?.detail ?? "", /connection refused/);

    fake = await startFakeOpenAiChatServer({ port });
    await pass(CHECK_EVERY_MS);
    p = await part();
    assert.equal(p?.state, "ok");
    assert.equal(fake.checks.length, 1);
  });

  it("a real call that fails marks it down at once; one that answers, ok at once", async () => {
    await fake.close();
    const failed = await suggest();
    assert.equal(failed.status, 503, failed.text);
    let p = await part();
    assert.equal(p?.state, "down");
    assert.match(p?.detail ?? "", /unreachable/);

    fake = await startFakeOpenAiChatServer({ port });
    fake.fallback = { content: JSON.stringify({ title: "Your heater", body_text: "Turn the knob to 3.", voice_instruction: null, mood: "calm" }) };
    const ok = await suggest();
    assert.equal(ok.status, 200, ok.text);
    p = await part();
    assert.equal(p?.state, "ok");
    assert.equal(p?.since, new Date(clock.now()).toISOString());
  });

  it("a real call spares the check; with no calls it is checked at most once per 5 minutes", async () => {
    fake.reset();
    await suggest();
    await pass(CHECK_EVERY_MS - SAMPLE_EVERY_MS);
    assert.equal(fake.checks.length, 0, "no check within 5 minutes of a call");
    fake.reset();
    await pass(30 * MINUTE);
    assert.ok(fake.checks.length >= 6 && fake.checks.length <= 7, `checks in 30 minutes: ${fake.checks.length}`);
  });

  it("a household without models has no model part and no speech part", async () => {
    assert.equal(await part(bare), undefined);
    const res = await bare.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.deepEqual(
      res.body.parts.filter((p) => p.kind === "tts" || p.kind === "model"),
      [],
    );
  });
});
