/**
 * "Draft from words" (issue 27 §4) against the fake OpenAI-style server: a sentence and the
 * node catalog go to the authoring model; its rule bundle passes the import gate and comes
 * back as an undeployed tab's nodes; an answer the gate refuses gets one repair turn with the
 * gate's messages; a second refusal is a 422 that says why; without a model, a 409 that says
 * what to configure. Nothing is saved.
 */
import assert from "node:assert/strict";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../../fakes/openai-chat-server";
import { doorBundle } from "./words-fixture";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";

const SENTENCE = "Tell me when someone rings the door bell webhook at night";

describe("drafting a rule from words (authoring model)", () => {
  let fake: ScriptedServer;
  let t: TestApp;
  let bare: TestApp;
  before(async () => {
    fake = await startFakeOpenAiChatServer();
    t = await startTestApp({
      settings: {
        llm: {
          models: [{ id: "author", api_type: "openai", base_url: fake.baseUrl, model: "writer-7b", capabilities: ["text"], guided_decoding: true, timeout: 5 }],
        },
        knowledge: { authoring_model: "author" },
      },
    });
    bare = await startTestApp();
  });
  after(async () => {
    await Promise.all([t.close(), bare.close(), fake.close()]);
  });
  beforeEach(() => fake.reset());

  it("drafts an undeployed tab from a sentence, with the catalog's schemas in the prompt", async () => {
    fake.script({ content: JSON.stringify(doorBundle(["chat_app"])) });
    const res = await t.request("POST", "/api/v1/rules/draft-from-words", { body: { sentence: SENTENCE }, key: KEYS.caregiver });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.repaired, false);
    assert.equal(res.body.bundle.rule.name, "Door bell at night");
    const flows = res.body.flows as Array<{ id: string; type: string; z?: string; name?: string; label?: string }>;
    const tab = flows.find((n) => n.type === "tab")!;
    assert.equal(tab.label, "Door bell at night");
    assert.ok(flows.some((n) => n.type === "care-trigger" && n.z === tab.id));
    assert.ok(flows.some((n) => n.name === "Tell the family" && n.z === tab.id));
    const prompt = fake.requests[0].body.messages.map((m: { content: string }) => m.content).join("\n");
    assert.match(prompt, new RegExp(SENTENCE));
    assert.match(prompt, /"type":"notification"/, "the catalog's step types");
    assert.match(prompt, /"config_schema":\{/, "with their JSON Schemas");
    assert.equal(fake.requests[0].body.guided_json.type, "object", "structured output");
    assert.equal((await t.get("/api/v1/rules")).body.length, 0, "nothing is saved");
  });

  it("repairs an answer the deploy gate refuses with one more turn that quotes the gate", async () => {
    fake.script({ content: JSON.stringify(doorBundle(["carrier_pigeon"])) }, { content: JSON.stringify(doorBundle(["chat_app"])) });
    const res = await t.post("/api/v1/rules/draft-from-words", { sentence: SENTENCE });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.repaired, true);
    assert.equal(fake.requests.length, 2);
    const repair = fake.requests[1].body.messages.at(-1).content as string;
    assert.match(repair, /not valid: step .Tell the family.: config_json\.channels\.0: .*Invalid option/);
  });

  it("refuses with 422 and the gate's reasons when the repair is refused too", async () => {
    fake.script({ content: JSON.stringify(doorBundle(["carrier_pigeon"])) }, { content: JSON.stringify(doorBundle(["smoke_signal"])) });
    const res = await t.post("/api/v1/rules/draft-from-words", { sentence: SENTENCE });
    assert.equal(res.status, 422, res.text);
    assert.match(
      res.body.detail,
      /^sentence: the authoring model's rule was refused after one repair: step .Tell the family.: config_json\.channels\.0: .*Invalid option/,
    );
    assert.equal(fake.requests.length, 2, "one repair turn, no more");
  });

  it("says what to configure when there is no authoring model (409), and checks the sentence (422)", async () => {
    const none = await bare.post("/api/v1/rules/draft-from-words", { sentence: SENTENCE });
    assert.equal(none.status, 409);
    assert.match(none.body.detail, /set knowledge\.authoring_model to an llm\.models id .* to draft rules from words/);
    // Beside the integrator's detail, what a family reads: no settings path in it.
    assert.equal(none.body.not_set_up.part, "language_model");
    assert.match(none.body.not_set_up.message, /^Drafting needs a language model, and none is set up in this home yet\. Whoever installed careflow/);
    assert.doesNotMatch(none.body.not_set_up.message, /authoring_model|llm\./);
    const empty = await t.post("/api/v1/rules/draft-from-words", { sentence: "" });
    assert.equal(empty.status, 422);
    assert.match(empty.body.detail, /sentence/);
  });
});
