/**
 * A quiz's run survives the process, like a `wait`: kill the service (SIGKILL) in the middle
 * of a quiz, start it again on the same data, and the quiz goes on where it was and the run
 * continues with the score once; a session whose time ran out while the service was down
 * times out when it starts again, and its run continues with `timed_out` at once.
 */
import assert from "node:assert/strict";
import { openStore } from "../../../../../../runtime/platform/db/store";
import { startService, type ServiceProcess } from "../../../../../support/service-process";
import { eventually } from "../../../../../support/eventually";
import { migratedDatabase, type TestDatabase } from "../../../../../support/test-db";
import { FAMILY_QUESTIONS, insertQuiz } from "../../../../../support/knowledge-fixture";

const ADMIN = "quiz-restart-admin-key";

describe("quiz sessions across a restart", function () {
  this.timeout(90000);
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let svc: ServiceProcess | undefined;

  before(async () => {
    db = await migratedDatabase();
    env = { CAREFLOW_DATA_DIR: db.dataDir, CAREFLOW_ADMIN_KEY: ADMIN, CAREFLOW_DEMO: "0", ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) };
  });
  after(async () => {
    await svc?.stop("SIGTERM");
    await db.drop();
  });

  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(svc!.baseUrl + p, {
      method,
      headers: { "x-api-key": ADMIN, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const runOf = (exec: number) => api("GET", `/api/v1/workflows/${exec}`).then((r) => r.body);
  async function until(exec: number, status: string): Promise<Record<string, any>> {
    return eventually(
      `run ${exec} ${status}`,
      async () => {
        const run = await runOf(exec);
        return run.status === status ? run : undefined;
      },
      15_000,
    );
  }
  async function startQuizRun(name: string, quizId: number, timeoutMinutes: number): Promise<number> {
    const imported = await api("POST", "/api/v1/rules/import", {
      schema_version: 1,
      rule: { name, trigger_type: "manual" },
      steps: [
        { label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quizId, dedupe_minutes: 0, timeout_minutes: timeoutMinutes } },
        { label: "after", step_type: "condition", schema_version: 1, config: { expression: "quiz.answered > 0" } },
      ],
      edges: [{ source_label: "quiz", source_port: "main", target_label: "after" }],
    });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    return (await api("POST", `/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
  }

  it("goes on with the quiz after a SIGKILL and continues the run once, with the score", async () => {
    svc = await startService(env);
    const store = await openStore(db.databaseUrl, db.dataDir);
    const questions = FAMILY_QUESTIONS.map((q) => ({ ...q, picture: false }));
    const quizId = await insertQuiz({ db: store.db } as never, { questions });
    await store.close();

    const exec = await startQuizRun("Quiz survives", quizId, 30);
    const sessionId = (await until(exec, "waiting")).pipeline_data.quiz.session_id as number;
    const answers = `/api/v1/knowledge-interactions/quiz-sessions/${sessionId}/answers`;
    assert.equal((await api("POST", answers, { question_ord: 1, choice_id: "c1" })).status, 200);
    await svc.stop("SIGKILL");

    svc = await startService(env);
    const current = await api("GET", `/api/v1/knowledge-interactions/quiz-sessions/${sessionId}`);
    assert.equal(current.body.current_question_ord, 2, "the quiz is where it was");
    assert.equal((await api("POST", answers, { question_ord: 2, choice_id: "c2" })).status, 200);
    const last = await api("POST", answers, { question_ord: 3, choice_id: "c1" });
    assert.equal(last.body.advance.done, true);
    const run = await until(exec, "completed");
    assert.equal(run.pipeline_data.quiz.status, "completed");
    assert.equal(run.pipeline_data.quiz.score, 100);
    assert.deepEqual(
      run.step_timings.map((s: { label: string }) => s.label),
      ["quiz", "after"],
      "the step after the quiz ran once",
    );
  });

  it("times out a session whose time ran out while the service was down, and continues its run", async () => {
    const store = await openStore(db.databaseUrl, db.dataDir);
    const quizId = await insertQuiz({ db: store.db } as never, {
      questions: [
        {
          text: "Is it raining?",
          choices: [
            ["Yes", false],
            ["No", true],
          ],
        },
      ],
    });
    await store.close();
    const exec = await startQuizRun("Quiz runs out", quizId, 0.05); // 3 s
    const sessionId = (await until(exec, "waiting")).pipeline_data.quiz.session_id as number;
    await svc!.stop("SIGKILL");
    // sleep-ok: the quiz's 3 s run out while the service is down, on the real clock of a process of
    // its own; the time passing is what is tested, and the check after it is positive.
    await new Promise((r) => setTimeout(r, 3500));
    svc = await startService(env);
    const run = await until(exec, "completed");
    assert.equal(run.pipeline_data.quiz.status, "timed_out");
    assert.equal(run.pipeline_data.quiz.session_id, sessionId);
    assert.equal((await api("GET", `/api/v1/knowledge-interactions/quiz-sessions/${sessionId}`)).body.status, "timed_out");
  });
});
