/** The suggestion routes against the fake OpenAI-style server: drafts validated, one repair turn, 409 without a model, 503 when it is down. */
import assert from "node:assert/strict";
import { makeDocument } from "./knowledge-support";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../../fakes/openai-chat-server";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";

/** Made in `before` through the documents API; its id is set then. */
const DOC = {
  id: 0,
  title: "The new heater",
  source_text: "The heater in the hall has a knob. Turn it to 3 when you are cold. Anna comes on Sundays.",
  status: "approved",
};

const quizAnswer = (correct: [boolean, boolean, boolean]) =>
  JSON.stringify({
    title: "The heater",
    intro_voice_template: "Let's see what you remember about the heater.",
    questions: [
      {
        question_type: "multiple_choice",
        question_text: "Where is the heater?",
        choices: [
          { id: "a", text: "In the hall", is_correct: correct[0] },
          { id: "b", text: "In the kitchen", is_correct: correct[1] },
          { id: "c", text: "In the garden", is_correct: correct[2] },
        ],
        explanation: "It is in the hall.",
      },
    ],
  });

describe("knowledge suggestions (authoring model)", () => {
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
    DOC.id = (await makeDocument(t, DOC.title, DOC.source_text, "", true)).id;
  });
  after(async () => {
    await Promise.all([t.close(), bare.close(), fake.close()]);
  });
  beforeEach(() => fake.reset());

  it("drafts a card from a document with the schema as guided decoding, and saves nothing", async () => {
    fake.script({
      content: JSON.stringify({ title: "Your heater", body_text: "Turn the knob to 3 when you are cold.", voice_instruction: null, mood: "calm" }),
    });
    const res = await t.request("POST", "/api/v1/info-cards/suggest", { body: { document_id: DOC.id, layout_id: "single_hero" }, key: KEYS.caregiver });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.draft, {
      layout_id: "single_hero",
      title: "Your heater",
      body_text: "Turn the knob to 3 when you are cold.",
      voice_instruction: null,
      tags: [],
      document_id: DOC.id,
    });
    assert.equal(res.body.repaired, false);
    const sent = fake.requests[0].body;
    assert.equal(sent.model, "writer-7b");
    assert.equal(sent.guided_json.type, "object");
    assert.match(sent.messages[1].content, /Turn it to 3 when you are cold/);
    assert.equal((await t.get("/api/v1/info-cards")).body.total, 0, "a draft is not saved");
    // The draft is what POST /info-cards takes.
    const created = await t.post("/api/v1/info-cards", { ...res.body.draft, document_id: null });
    assert.equal(created.status, 201, created.text);
  });

  it("repairs an invalid first answer with one more turn that says what was wrong", async () => {
    fake.script({ content: quizAnswer([true, true, false]) }, { content: "```json\n" + quizAnswer([true, false, false]) + "\n```" });
    const res = await t.post("/api/v1/quizzes/suggest", { document_id: DOC.id, question_count: 3 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.repaired, true);
    assert.equal(res.body.draft.questions.length, 1);
    assert.deepEqual(
      res.body.draft.questions[0].choices.map((c: { is_correct: boolean }) => c.is_correct),
      [true, false, false],
    );
    assert.equal(fake.requests.length, 2);
    const repair = fake.requests[1].body.messages;
    assert.equal(repair[2].role, "assistant");
    assert.match(repair[3].content, /not valid: .*exactly one must be correct/);
  });

  it("answers 502 when the repaired answer is still invalid, and 503 naming the model when it is down", async () => {
    fake.script({ content: "I think the heater is nice." }, { content: JSON.stringify({ title: "" }) });
    const bad = await t.post("/api/v1/info-cards/suggest", { document_id: DOC.id });
    assert.equal(bad.status, 502);
    assert.match(bad.body.detail, /model 'author' .*no valid draft after one repair: .*title/);
    fake.script({ status: 500, error: "CUDA out of memory" });
    const down = await t.post("/api/v1/info-cards/suggest", { document_id: DOC.id });
    assert.equal(down.status, 503);
    assert.match(down.body.detail, /authoring model 'author'/);
  });

  it("suggests a quiz's voice instruction and regenerates one question (not saved)", async () => {
    const quiz = (await t.post("/api/v1/quizzes", { title: "Heater quiz", document_id: null })).body;
    const q = (
      await t.post(`/api/v1/quizzes/${quiz.id}/questions`, {
        question_text: "Where is the heater?",
        choices: [{ text: "Hall", is_correct: true }, { text: "Attic" }],
      })
    ).body;
    fake.script({ content: JSON.stringify({ voice_instruction: "Speak slowly and praise every answer." }) });
    const voice = await t.post("/api/v1/quizzes/voice-instruction-suggest", { quiz_id: quiz.id });
    assert.equal(voice.status, 200, voice.text);
    assert.equal(voice.body.draft.voice_instruction, "Speak slowly and praise every answer.");
    assert.match(fake.requests[0].body.messages[1].content, /Where is the heater\?/);
    fake.script({ content: JSON.stringify({ voice_instruction: "Be cheerful." }) });
    const byTitle = await t.post("/api/v1/quizzes/voice-instruction-suggest", { title: "Family", questions: [{ question_text: "Who is Anna?" }] });
    assert.equal(byTitle.body.draft.voice_instruction, "Be cheerful.");
    assert.match((await t.post("/api/v1/quizzes/voice-instruction-suggest", {})).body.detail, /quiz_id/);

    fake.script({ content: quizAnswer([false, false, true]).replace(/^.*"questions":\[(.*)\]}$/, "$1") });
    const regen = await t.post(`/api/v1/quizzes/${quiz.id}/questions/${q.id}/regenerate`);
    assert.equal(regen.status, 200, regen.text);
    assert.equal(regen.body.draft.id, q.id);
    assert.equal(regen.body.draft.question_text, "Where is the heater?");
    assert.equal((await t.get(`/api/v1/quizzes/${quiz.id}`)).body.questions[0].choices.length, 2, "the question itself is unchanged");
    assert.equal((await t.post(`/api/v1/quizzes/${quiz.id}/questions/99999/regenerate`)).status, 404);
  });

  it("answers 422 naming document_id for an unknown document", async () => {
    const res = await t.post("/api/v1/quizzes/suggest", { document_id: 77 });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /document_id: document 77 not found/);
    assert.match((await t.post("/api/v1/quizzes/suggest", { document_id: DOC.id, question_count: 50 })).body.detail, /question_count/);
    assert.equal(fake.requests.length, 0);
  });

  it("answers 409 saying what to set when no authoring model is configured", async () => {
    for (const [path, body] of [
      ["/api/v1/info-cards/suggest", { document_id: DOC.id }],
      ["/api/v1/quizzes/suggest", { document_id: DOC.id }],
      ["/api/v1/quizzes/voice-instruction-suggest", { title: "x" }],
    ] as const) {
      const res = await bare.post(path, body);
      assert.equal(res.status, 409, path);
      assert.match(res.body.detail, /set knowledge.authoring_model to an llm.models id/);
      assert.equal(res.body.not_set_up.part, "language_model", path);
    }
  });

  it("answers 409 when the authoring model is not a text model", async () => {
    const embedOnly = await startTestApp({
      settings: {
        llm: { models: [{ id: "vectors", api_type: "openai", base_url: fake.baseUrl, model: "embed", capabilities: ["embedding"] }] },
        knowledge: { authoring_model: "vectors" },
      },
    });
    try {
      const res = await embedOnly.post("/api/v1/info-cards/suggest", { document_id: DOC.id });
      assert.equal(res.status, 409);
      assert.match(res.body.detail, /knowledge.authoring_model 'vectors' has no 'text' capability/);
    } finally {
      await embedOnly.close();
    }
  });
});
