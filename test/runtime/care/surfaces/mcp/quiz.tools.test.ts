/**
 * The quiz tools over MCP (the official SDK's client) and the REST mirror: an agent answers a
 * whole quiz to the end by following each answer's `advance`, and the run that started it
 * continues with the score; repeats and wrong questions answered as the tablet's are; a
 * read-only agent may read the question but not answer.
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually, importRule } from "../../../../support/eventually";
import { insertQuiz } from "../../../../support/knowledge-fixture";
import { connectMcp, type Client } from "./mcp-client";

type Result = { content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as Result;
const valueOf = (r: Result) => JSON.parse(r.content[0].text) as any;

describe("MCP quiz tools", function () {
  this.timeout(60000);
  let t: TestApp;
  let client: Client;
  let quizId: number;

  before(async () => {
    t = await startTestApp({ nodeRed: true });
    quizId = await insertQuiz(t.app.ctx);
    client = await connectMcp(t.baseUrl, KEYS.admin);
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  async function startRun(): Promise<{ exec: number; sessionId: number }> {
    const ruleId = await importRule(t, {
      rule: { name: `MCP quiz ${Date.now()}`, trigger_type: "manual" },
      steps: [{ label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quizId, dedupe_minutes: 0 } }],
      edges: [],
    });
    const exec = (await t.post(`/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
    const run = await eventually("the run waits", async () => {
      const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return r.status === "waiting" && r;
    });
    return { exec, sessionId: run.pipeline_data.quiz.session_id };
  }

  it("answers a whole quiz to the end, following advance, and the run continues with the score", async () => {
    const { exec, sessionId } = await startRun();
    const first = valueOf(await call(client, "get_current_quiz_question", {}));
    assert.equal(first.session_id, sessionId, "without an id: the open session");
    let question = first.question;
    const right: Record<number, string> = { 1: "c1", 2: "c2", 3: "c1" };
    let last: any;
    let asked = 0;
    while (question) {
      asked++;
      const r = await call(client, "submit_quiz_answer", { session_id: sessionId, question_ord: question.ord, choice_id: right[question.ord] });
      assert.notEqual(r.isError, true, r.content[0].text);
      last = valueOf(r);
      assert.equal(last.is_correct, true);
      question = last.advance.done ? null : last.advance.question;
    }
    assert.equal(asked, 3, "every question was asked, one after another");
    assert.deepEqual(last.advance, { done: true, status: "completed", score: 100, correct: 3, answered: 3, total: 3 });
    const run = await eventually("the run completed", async () => {
      const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return r.status === "completed" && r;
    });
    assert.equal(run.pipeline_data.quiz.score, 100);
    assert.equal(run.pipeline_data.quiz.status, "completed");
    const ended = valueOf(await call(client, "complete_quiz_session", { session_id: sessionId }));
    assert.equal(ended.status, "completed", "completing an ended session answers its result");
    assert.equal(ended.score, 100);
    const detail = (await t.get(`/api/v1/knowledge-interactions/quiz-sessions/${sessionId}`)).body;
    assert.deepEqual(
      detail.responses.map((r: { channel: string }) => r.channel),
      ["mcp", "mcp", "mcp"],
    );
  });

  it("refuses another question than the current one, and ends a session early as abandoned", async () => {
    const { exec, sessionId } = await startRun();
    const wrong = await call(client, "submit_quiz_answer", { session_id: sessionId, question_ord: 2, choice_id: "c1" });
    assert.equal(wrong.isError, true);
    assert.match(valueOf(wrong).error, /question 2 is not the current question .*\(the current one is 1\)/);
    const viaRest = await t.request("POST", "/api/v1/mcp/tools/submit_quiz_answer", { body: { session_id: sessionId, question_ord: 2, choice_id: "c1" } });
    assert.equal(viaRest.status, 409, "the REST mirror answers the same refusal as a 409");
    await call(client, "submit_quiz_answer", { session_id: sessionId, question_ord: 1, choice_id: "c2" });
    const ended = valueOf(await call(client, "complete_quiz_session", { session_id: sessionId }));
    assert.equal(ended.status, "abandoned");
    assert.equal(ended.answered_count, 1);
    const run = await eventually("the run completed", async () => {
      const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return r.status === "completed" && r;
    });
    assert.equal(run.pipeline_data.quiz.status, "abandoned");
  });

  it("lets a read-only agent read the question but not answer it", async () => {
    const { sessionId } = await startRun();
    const readonly = await connectMcp(t.baseUrl, KEYS.mcp);
    try {
      const q = await call(readonly, "get_current_quiz_question", { session_id: sessionId });
      assert.notEqual(q.isError, true);
      const a = await call(readonly, "submit_quiz_answer", { session_id: sessionId, question_ord: 1, choice_id: "c1" });
      assert.equal(a.isError, true);
      assert.match(valueOf(a).error, /Permission denied/);
    } finally {
      await readonly.close();
    }
    await call(client, "complete_quiz_session", { session_id: sessionId });
  });
});
