import type { z } from "zod";
import { NO_WEB_APP } from "../../../vocabulary/tablet";
import type { StepHandler } from "../../_kit/handler-types";
import { screens } from "../../_kit/words";
import type { spec } from "./quiz_start.node";

type Config = z.output<typeof spec.config>;

/**
 * The run waits for the quiz as it waits for a `wait`: parked in the store until the session
 * ends, which resumes it with `quiz.*` (completed, abandoned or timed_out, and the score). The
 * park lasts a minute past the session's timeout: the session's own timer ends it first and
 * resumes the run with the real score; the park's end is only the backstop. A quiz already
 * run for this person within `dedupe_minutes` is not started again: the run goes on at once
 * on the `skipped` port.
 */
export const BACKSTOP_MS = 60_000;

export const handler: StepHandler<Config> = async (ctx, input, config) => {
  if (config.quiz_id === undefined) throw new Error("quiz_id: choose the quiz (required before the step can run)");
  const started = await ctx.services.knowledge.startQuiz(
    {
      quiz_id: config.quiz_id,
      senior_id: config.senior_id ?? null,
      dedupe_minutes: config.dedupe_minutes,
      timeout_minutes: config.timeout_minutes,
      voice_instruction: config.voice_instruction ? ctx.services.templates.render(config.voice_instruction, input.pipeline_data).trim() || null : null,
      rule_id: input.rule_id,
      execution_id: input.execution_id,
      step_id: input.step.id,
    },
    ctx.signal,
  );
  if (!started.started) {
    return {
      output_ports: ["skipped"],
      data: { quiz: { status: "skipped", quiz_id: config.quiz_id, session_id: started.previous_session_id, reason: started.reason } },
      trace: { message: `not started: ${started.reason}` },
    };
  }
  const shown = started.clients > 0 ? `shown on ${screens(started.clients)}` : `${NO_WEB_APP}; shown when it is opened`;
  if (started.clients === 0) ctx.log.warn({ execution_id: input.execution_id, session_id: started.session_id }, `quiz: ${shown}`);
  return {
    output_ports: ["main"],
    data: { quiz: { status: "started", quiz_id: config.quiz_id, session_id: started.session_id, total: started.question_count } },
    wait_until: Date.parse(started.expires_at) + BACKSTOP_MS,
    on_timeout_data: started.timed_out_data,
    trace: { message: `${started.quiz_title}: ${started.question_count} question(s), ${shown}; voice: ${started.voice}` },
  };
};
