/**
 * The pickers of the `info_card` and `quiz_start` forms: `careflow/knowledge-choices` on the
 * editor's admin API lists the approved cards or quizzes as the repository's own list
 * endpoints (`?status=approved`) give them. Until those endpoints are served, it answers 404
 * saying so, and the form keeps the node's id.
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";
import { insertCard, insertQuiz } from "../../support/knowledge-fixture";

type Json = Record<string, any>;

describe("knowledge pickers (editor admin API)", function () {
  this.timeout(30000);
  let t: TestApp;
  let approved: number;
  let draft: number;
  let quiz: number;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
    approved = await insertCard(t.app.ctx, { title: "The new heater" });
    draft = await insertCard(t.app.ctx, { title: "Draft card", status: "draft" });
    quiz = await insertQuiz(t.app.ctx, { title: "Family and home" });
  });
  after(() => t.close());

  const editor = async (path: string, bearer: string = KEYS.caregiver): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${t.baseUrl}/editor${path}`, { headers: { authorization: `Bearer ${bearer}` } });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Json };
  };

  it("lists approved cards and quizzes for the pickers, or says the list is not served yet", async () => {
    const cards = await editor("/careflow/knowledge-choices?kind=info_card");
    if (cards.status === 404) {
      assert.match(cards.body.detail, /\/api\/v1\/info-cards\?status=approved is not served/);
      return;
    }
    assert.equal(cards.status, 200, JSON.stringify(cards.body));
    assert.ok(cards.body.some((c: Json) => c.value === String(approved) && c.label === `The new heater (#${approved})`));
    assert.ok(!cards.body.some((c: Json) => c.value === String(draft)), "a draft is not offered");
    const quizzes = await editor("/careflow/knowledge-choices?kind=quiz");
    assert.ok(quizzes.body.some((q: Json) => q.value === String(quiz)));
  });

  it("needs the editor's login and a kind it knows", async () => {
    assert.equal((await fetch(`${t.baseUrl}/editor/careflow/knowledge-choices?kind=quiz`)).status, 401);
    const bad = await editor("/careflow/knowledge-choices?kind=recipes");
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /kind: info_card or quiz/);
  });
});
