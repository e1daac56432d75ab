/** A card or quiz a deployed rule uses cannot be hard-deleted: imported rules with info_card and quiz_start steps. */
import assert from "node:assert/strict";
import { importRule } from "../../../../support/eventually";
import { startTestApp, type TestApp } from "../../../../support/test-app";

describe("knowledge: a rule holds its card and its quiz", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("answers 409 naming the rule, and deletes once the rule no longer uses it", async () => {
    const card = (await t.post("/api/v1/info-cards", { title: "Heater", body_text: "Turn the knob to 3." })).body;
    await t.post(`/api/v1/info-cards/${card.id}/approve`);
    const quiz = (await t.post("/api/v1/quizzes", { title: "Family" })).body;
    await t.post(`/api/v1/quizzes/${quiz.id}/questions`, { question_text: "Who?", choices: [{ text: "Anna", is_correct: true }, { text: "Ben" }] });
    await t.post(`/api/v1/quizzes/${quiz.id}/approve`);
    const ruleId = await importRule(t, {
      rule: { name: "Morning card", trigger_type: "manual" },
      steps: [
        { label: "card", step_type: "info_card", schema_version: 1, config: { card_id: card.id } },
        { label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quiz.id } },
      ],
      edges: [{ source_label: "card", source_port: "main", target_label: "quiz" }],
    });

    const cardRes = await t.request("DELETE", `/api/v1/info-cards/${card.id}`);
    assert.equal(cardRes.status, 409);
    assert.equal(cardRes.body.detail, `Info card ${card.id} is used by rule ${ruleId} 'Morning card'; archive it instead`);
    const quizRes = await t.request("DELETE", `/api/v1/quizzes/${quiz.id}`);
    assert.equal(quizRes.status, 409);
    assert.equal(quizRes.body.detail, `Quiz ${quiz.id} is used by rule ${ruleId} 'Morning card'; archive it instead`);
    // Archive is still the caregiver's way out while the rule stays.
    assert.equal((await t.post(`/api/v1/info-cards/${card.id}/archive`)).status, 200);

    assert.equal((await t.request("DELETE", `/api/v1/rules/${ruleId}`)).status, 204);
    assert.equal((await t.request("DELETE", `/api/v1/info-cards/${card.id}`)).status, 204);
    assert.equal((await t.request("DELETE", `/api/v1/quizzes/${quiz.id}`)).status, 204);
  });
});
