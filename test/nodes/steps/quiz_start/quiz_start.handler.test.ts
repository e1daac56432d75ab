import assert from "node:assert/strict";
import { checkConfig } from "../../../../nodes/_kit/config";
import type { QuizStartRequest, QuizStarted } from "../../../../vocabulary/knowledge";
import { BACKSTOP_MS, handler } from "../../../../nodes/steps/quiz_start/quiz_start.handler";
import { spec } from "../../../../nodes/steps/quiz_start/quiz_start.node";
import { handlerContext, stepInput } from "../../handler-context";

describe("quiz_start handler", () => {
  const run = async (config: Record<string, unknown>, answer: QuizStarted) => {
    const check = checkConfig(spec, config);
    assert.ok(check.ok, JSON.stringify(check));
    const asked: QuizStartRequest[] = [];
    const ctx = handlerContext({
      knowledge: {
        startQuiz: async (req) => {
          asked.push(req);
          return answer;
        },
      },
    });
    return { result: await handler(ctx, stepInput({ who: "Rose" }, "quiz_start"), check.config as never), asked: asked[0] };
  };
  const started: QuizStarted = {
    started: true,
    session_id: 12,
    quiz_title: "Family",
    question_count: 3,
    expires_at: "2026-01-05T09:30:00.000Z",
    timed_out_data: { quiz: { session_id: 12, status: "timed_out", score: 0 } },
    clients: 1,
    voice: "answered by tap",
  };

  it("starts the quiz and parks the run until a minute past the session's timeout", async () => {
    const { result, asked } = await run({ quiz_id: 4, voice_instruction: "Be cheerful with {{who}}" }, started);
    assert.deepEqual(asked, {
      quiz_id: 4,
      senior_id: null,
      dedupe_minutes: 720,
      timeout_minutes: 30,
      voice_instruction: "Be cheerful with Rose",
      rule_id: 1,
      execution_id: 1,
      step_id: 1,
    });
    assert.equal(result.wait_until, Date.parse(started.expires_at) + BACKSTOP_MS);
    assert.deepEqual(result.output_ports, ["main"]);
    assert.deepEqual(result.on_timeout_data, started.timed_out_data, "the backstop continues as timed_out");
    assert.deepEqual(result.data?.quiz, { status: "started", quiz_id: 4, session_id: 12, total: 3 });
  });

  it("goes on at once on `skipped` when the dedupe window holds it", async () => {
    const { result } = await run(
      { quiz_id: 4, senior_id: "rose", dedupe_minutes: 60 },
      { started: false, reason: "started at 09:00 within the last 60 min", previous_session_id: 9, previous_started_at: "2026-01-05T09:00:00Z" },
    );
    assert.equal(result.wait_until, undefined);
    assert.deepEqual(result.output_ports, ["skipped"]);
    assert.deepEqual(result.data?.quiz, { status: "skipped", quiz_id: 4, session_id: 9, reason: "started at 09:00 within the last 60 min" });
  });

  it("has the two ports and checks its numbers", () => {
    assert.deepEqual(spec.outputPorts, ["main", "skipped"]);
    assert.deepEqual(spec.requiredToRun, ["quiz_id"], "a rule without its quiz does not deploy");
    assert.equal(checkConfig(spec, { quiz_id: 1, timeout_minutes: 0 }).ok, false);
    assert.equal(checkConfig(spec, { quiz_id: 1, dedupe_minutes: -1 }).ok, false);
    assert.equal(checkConfig(spec, { quiz_id: 1, dedupe_minutes: 0 }).ok, true);
  });
});
