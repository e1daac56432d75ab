/** `/quizzes` over real HTTP: quizzes, ordered questions, reorder all or nothing, pictures, approve, delete. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { fetchSigned, gradientJpeg, putPicture } from "./knowledge-test-support";

describe("quizzes API", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const newQuiz = async (body: Record<string, unknown> = {}) => {
    const res = await t.request("POST", "/api/v1/quizzes", { body: { title: "Family", tags: ["family"], ...body }, key: KEYS.caregiver });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const addQ = (quizId: number, body: Record<string, unknown>) => t.request("POST", `/api/v1/quizzes/${quizId}/questions`, { body, key: KEYS.caregiver });
  const mc = (text: string, correct = 0) => ({
    question_text: text,
    choices: ["Anna", "Ben", "Clara"].map((c, i) => ({ text: c, is_correct: i === correct })),
    explanation: "She visits on Sundays.",
  });

  it("creates, lists by status and tag, shows questions in order, and patches a quiz", async () => {
    const quiz = await newQuiz({ intro_voice_template: "Let's play, {name}!", voice_instruction: "Speak softly." });
    assert.equal(quiz.question_layout_id, "quiz_with_optional_image");
    assert.equal(quiz.status, "draft");
    assert.deepEqual(quiz.questions, []);
    const q1 = await addQ(quiz.id, mc("Who is your granddaughter?"));
    assert.equal(q1.status, 201, q1.text);
    assert.deepEqual(
      q1.body.choices.map((c: { id: string }) => c.id),
      ["a", "b", "c"],
    );
    assert.equal(q1.body.ord, 1);
    const q2 = await addQ(quiz.id, { question_type: "open_ended", question_text: "What is your dog's name?", expected_answer: "Rex" });
    assert.equal(q2.body.ord, 2);
    const detail = await t.get(`/api/v1/quizzes/${quiz.id}`);
    assert.deepEqual(
      detail.body.questions.map((q: { question_text: string }) => q.question_text),
      ["Who is your granddaughter?", "What is your dog's name?"],
    );
    const list = await t.get("/api/v1/quizzes?tag=family&status=draft");
    assert.equal(list.status, 200);
    assert.equal(list.body.items.find((q: { id: number }) => q.id === quiz.id).question_count, 2);
    assert.equal((await t.get("/api/v1/quizzes?tag=nothing")).body.items.length, 0);
    const patched = await t.request("PATCH", `/api/v1/quizzes/${quiz.id}`, { body: { title: "Family quiz", tags: ["family", "weekly"] } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.title, "Family quiz");
    assert.equal(patched.body.version, 2);
  });

  it("answers 422 naming the field for a bad quiz or question", async () => {
    const noTitle = await t.post("/api/v1/quizzes", { tags: [] });
    assert.equal(noTitle.status, 422);
    assert.match(noTitle.body.detail, /title/);
    const cardLayout = await t.post("/api/v1/quizzes", { title: "x", question_layout_id: "single_hero" });
    assert.match(cardLayout.body.detail, /question_layout_id: layout 'single_hero' is for info_card, not quizzes/);
    const quiz = await newQuiz();
    const type = await addQ(quiz.id, { question_text: "x", question_type: "essay" });
    assert.equal(type.status, 422);
    assert.match(type.body.detail, /question_type/);
    const dup = await addQ(quiz.id, {
      question_text: "x",
      choices: [
        { id: "a", text: "1" },
        { id: "a", text: "2" },
      ],
    });
    assert.equal(dup.status, 422);
    assert.match(dup.body.detail, /choices.*'a' is used twice/);
    assert.equal((await t.get("/api/v1/quizzes/99999")).status, 404);
    assert.equal((await t.request("PATCH", `/api/v1/quizzes/${quiz.id}/questions/99999`, { body: { question_text: "y" } })).status, 404);
  });

  it("approves only with at least one question, each multiple-choice one with exactly one correct choice", async () => {
    const quiz = await newQuiz();
    const empty = await t.post(`/api/v1/quizzes/${quiz.id}/approve`);
    assert.equal(empty.status, 422);
    assert.match(empty.body.detail, /no questions/);
    const q = (
      await addQ(quiz.id, {
        question_text: "Who?",
        choices: [
          { text: "Anna", is_correct: true },
          { text: "Ben", is_correct: true },
        ],
      })
    ).body;
    const two = await t.post(`/api/v1/quizzes/${quiz.id}/approve`);
    assert.equal(two.status, 422);
    assert.match(two.body.detail, new RegExp(`question ${q.id} \\(ord 1\\) has 2 correct choices; exactly one must be correct`));
    const fixed = await t.request("PATCH", `/api/v1/quizzes/${quiz.id}/questions/${q.id}`, {
      body: {
        choices: [
          { id: "a", text: "Anna", is_correct: true },
          { id: "b", text: "Ben" },
        ],
      },
      key: KEYS.caregiver,
    });
    assert.equal(fixed.status, 200, fixed.text);
    const ok = await t.post(`/api/v1/quizzes/${quiz.id}/approve`, undefined, KEYS.caregiver);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.status, "approved");
    // Approved, it stays askable: a change that breaks a question, or deleting the only one, is refused.
    const broken = await t.request("PATCH", `/api/v1/quizzes/${quiz.id}/questions/${q.id}`, { body: { choices: [{ text: "Anna" }, { text: "Ben" }] } });
    assert.equal(broken.status, 409);
    assert.match(broken.body.detail, /is approved: question \d+ has 0 correct choices/);
    const only = await t.request("DELETE", `/api/v1/quizzes/${quiz.id}/questions/${q.id}`);
    assert.equal(only.status, 409);
    assert.match(only.body.detail, /its only question/);
    assert.equal(
      (await t.request("PATCH", `/api/v1/quizzes/${quiz.id}/questions/${q.id}`, { body: { question_text: "Who is your granddaughter?" } })).status,
      200,
    );
    const archived = await t.post(`/api/v1/quizzes/${quiz.id}/archive`);
    assert.equal(archived.body.status, "archived");
    const add = await addQ(quiz.id, mc("More?"));
    assert.equal(add.status, 409);
    assert.match(add.body.detail, /archived; restore it first/);
    assert.equal((await t.post(`/api/v1/quizzes/${quiz.id}/restore`)).body.status, "draft");
  });

  it("reorders questions all or nothing: an unknown id, a repeated ord or a missing question changes nothing", async () => {
    const quiz = await newQuiz();
    const ids: number[] = [];
    for (const text of ["One", "Two", "Three"]) ids.push((await addQ(quiz.id, mc(text))).body.id);
    const texts = async () => (await t.get(`/api/v1/quizzes/${quiz.id}`)).body.questions.map((q: { question_text: string }) => q.question_text);

    const unknown = await t.post(`/api/v1/quizzes/${quiz.id}/questions/reorder`, {
      items: [
        { id: ids[2], ord: 1 },
        { id: 987654, ord: 2 },
        { id: ids[0], ord: 3 },
      ],
    });
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.detail, new RegExp(`items.1.id: question 987654 is not a question of quiz ${quiz.id}`));
    assert.deepEqual(await texts(), ["One", "Two", "Three"]);
    const sameOrd = await t.post(`/api/v1/quizzes/${quiz.id}/questions/reorder`, {
      items: [
        { id: ids[2], ord: 1 },
        { id: ids[1], ord: 1 },
        { id: ids[0], ord: 3 },
      ],
    });
    assert.match(sameOrd.body.detail, /items.1.ord: 1 is also given to question/);
    const missing = await t.post(`/api/v1/quizzes/${quiz.id}/questions/reorder`, { items: [{ id: ids[2], ord: 1 }] });
    assert.equal(missing.status, 422);
    assert.match(missing.body.detail, new RegExp(`questions ${ids[0]}, ${ids[1]} missing`));
    assert.deepEqual(await texts(), ["One", "Two", "Three"]);

    const ok = await t.request("POST", `/api/v1/quizzes/${quiz.id}/questions/reorder`, {
      body: {
        items: [
          { id: ids[2], ord: 1 },
          { id: ids[0], ord: 2 },
          { id: ids[1], ord: 3 },
        ],
      },
      key: KEYS.caregiver,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(await texts(), ["Three", "One", "Two"]);
    const { quizForDelivery } = await import("../../../../../runtime/care/services/knowledge/quizzes/quiz-delivery.read");
    assert.deepEqual(
      (await quizForDelivery(t.app.ctx.db, quiz.id))?.questions.map((q) => q.question_text),
      ["Three", "One", "Two"],
    );
    assert.equal((await t.request("DELETE", `/api/v1/quizzes/${quiz.id}/questions/${ids[1]}`, { key: KEYS.caregiver })).status, 204);
    assert.deepEqual(await texts(), ["Three", "One"]);
  });

  it("renders a question's picture with the quiz layout's slot, and removes it", async () => {
    const quiz = await newQuiz();
    const q = (await addQ(quiz.id, mc("Who is this?"))).body;
    const res = await putPicture(
      t,
      `/api/v1/quizzes/${quiz.id}/questions/${q.id}/image`,
      await gradientJpeg(1200, 900),
      { alt_text: "A girl" },
      KEYS.caregiver,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.image.alt_text, "A girl");
    const [v] = res.body.image.variants;
    assert.deepEqual([v.surface, v.width, v.height, v.format], ["pwa", 960, 540, "webp"]);
    const meta = await sharp((await fetchSigned(t, v.url)).bytes).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["webp", 960, 540]);
    const { quizForDelivery } = await import("../../../../../runtime/care/services/knowledge/quizzes/quiz-delivery.read");
    assert.equal((await quizForDelivery(t.app.ctx.db, quiz.id))?.questions[0].image?.variants[0].width, 960);
    const removed = await t.request("DELETE", `/api/v1/quizzes/${quiz.id}/questions/${q.id}/image`, { key: KEYS.caregiver });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.image, null);
    assert.equal((await putPicture(t, `/api/v1/quizzes/${quiz.id}/questions/99999/image`, await gradientJpeg(64, 64))).status, 404);
  });

  it("hard-deletes a quiz (admins only) unless a rule's quiz_start step uses it", async () => {
    const quiz = await newQuiz({ title: "Used" });
    await addQ(quiz.id, mc("Who?"));
    const flows = t.app.ctx.flows;
    const real = flows.snapshot.bind(flows);
    flows.snapshot = async () => {
      const snap = await real();
      return {
        flows: [
          ...snap.flows,
          { id: "tabQ", type: "tab", label: "Evening quiz" },
          { id: "nQ", type: "care-quiz_start", z: "tabQ", config: { quiz_id: quiz.id } },
        ],
        index: {
          ...snap.index,
          rules: [...snap.index.rules, { id: 9, tab_id: "tabQ", webhook_secret: null, webhook_secret_created_at: null, created_at: "", updated_at: "" }],
          steps: [...snap.index.steps, { id: 90, rule_id: 9, node_id: "nQ", order: 1 }],
        },
      };
    };
    try {
      const res = await t.request("DELETE", `/api/v1/quizzes/${quiz.id}`);
      assert.equal(res.status, 409);
      assert.equal(res.body.detail, `Quiz ${quiz.id} is used by rule 9 'Evening quiz'; archive it instead`);
    } finally {
      flows.snapshot = real;
    }
    assert.equal((await t.request("DELETE", `/api/v1/quizzes/${quiz.id}`, { key: KEYS.caregiver })).status, 403);
    assert.equal((await t.request("DELETE", `/api/v1/quizzes/${quiz.id}`)).status, 204);
    assert.equal((await t.get(`/api/v1/quizzes/${quiz.id}`)).status, 404);
  });
});
