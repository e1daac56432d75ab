/**
 * Interactive prompts: the `interactive_prompt` step records a prompt here, and answers
 * arrive through `respond()` from REST (`POST /interactive-responses`), the web app's `/ws`
 * and, later, the MCP tool. The first outcome per (execution, step) wins, whether an answer
 * or the countdown running out; later answers are acknowledged and change nothing.
 *
 * The engine decides who resumes the run (`engine.answer` claims it atomically); this
 * service keeps the prompt's row, closes the race between a prompt going out and its run
 * parking, and applies what follows an outcome (see interactive.effects.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { CareContext } from "../../core/context";
import type { RunEngine } from "../../core/pipeline/engine/types";
import { isoNow } from "../../../platform/core/clock";
import { ConflictError, NotFoundError, ServiceUnavailableError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import { getRun } from "../../core/pipeline/runs/runs.service";
import { applyOutcomeEffects } from "./interactive.effects";
import {
  ACTIONS,
  ANSWER_CHANNELS,
  claimOutcome,
  expiredUnanswered,
  findPrompt,
  savePrompt,
  type Action,
  type Channel,
  type NewPrompt,
  type PromptRow,
} from "../../../household/prompts/prompts.store";
import { storeId } from "../../../../nodes/_kit/store-id";

export const interactiveResponseSchema = z
  .object({
    execution_id: storeId(),
    step_id: z.number().int().nonnegative(),
    channel: z.enum(ANSWER_CHANNELS),
    action: z.enum(ACTIONS),
    raw_response: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export type InteractiveResponse = z.input<typeof interactiveResponseSchema>;

export interface RespondResult {
  success: boolean;
  message: string;
  /** The action that counts: this answer's when it won, else the one recorded first. */
  action: Action;
}

/**
 * An answer can reach a run that has put its prompt out but not yet parked: it waits for the
 * engine's park signal. A run not in memory here (being claimed to resume) is asked again
 * after a pause, up to about 10 s in all.
 */
const PARK_RETRY_MS = 20;
const PARK_RETRIES = 500;

const keyOf = (executionId: number, stepId: number) => `${executionId}:${stepId}`;

/** Called by the step before it broadcasts, so any answer finds the prompt. */
export async function recordPrompt(ctx: CareContext, prompt: NewPrompt): Promise<void> {
  await savePrompt(ctx.db, prompt);
}

export async function respond(ctx: CareContext, input: unknown, actor = "senior"): Promise<RespondResult> {
  const body = parseInput(interactiveResponseSchema, input);
  await getRun(ctx, body.execution_id); // 404 when there is no such run
  if (!(await findPrompt(ctx.db, body.execution_id, body.step_id))) {
    throw new NotFoundError(`Execution ${body.execution_id} has no interactive prompt at step ${body.step_id}`);
  }
  return serialized(ctx, keyOf(body.execution_id, body.step_id), () => apply(ctx, body, actor));
}

async function serialized<T>(ctx: CareContext, key: string, fn: () => Promise<T>): Promise<T> {
  const queues = ctx.work.answerQueues;
  const previous = queues.get(key) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  const tail = next.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => queues.get(key) === tail && queues.delete(key));
  return next;
}

async function apply(ctx: CareContext, body: z.output<typeof interactiveResponseSchema>, actor: string): Promise<RespondResult> {
  const engine = ctx.engine;
  if (!engine) throw new ServiceUnavailableError("The pipeline engine is not running; answers cannot be applied");
  const key = keyOf(body.execution_id, body.step_id);
  const { answering } = ctx.work;
  answering.add(key);
  try {
    const answer = { channel: body.channel, action: body.action, timestamp: isoNow(ctx.clock), raw_response: body.raw_response };
    for (let attempt = 0; ; attempt++) {
      const prompt = (await findPrompt(ctx.db, body.execution_id, body.step_id))!;
      if (prompt.answered_at) return alreadyAnswered(prompt);
      if (ctx.clock.now() >= Date.parse(prompt.expires_at)) return alreadyAnswered(await closeByTimeout(ctx, prompt));
      const result = await engine.answer(body.execution_id, body.step_id, { [prompt.output_key]: answer });
      if (result === "resumed") {
        await claimOutcome(ctx.db, prompt.id, { answered_at: answer.timestamp, channel: body.channel, action: body.action });
        await applyOutcomeEffects(ctx, prompt, { channel: body.channel, action: body.action, actor: `${actor} (${body.channel})` });
        return { success: true, message: `Response recorded: ${body.action}; the run continues`, action: body.action };
      }
      const { status } = await getRun(ctx, body.execution_id);
      if (status !== "running")
        throw new ConflictError(`Execution ${body.execution_id} is ${status}; its prompt at step ${body.step_id} can no longer be answered`);
      if (attempt >= PARK_RETRIES) throw new ConflictError(`Execution ${body.execution_id} is still busy with other steps; answer again in a moment`);
      if (!(await engine.whenParked(body.execution_id, body.step_id))) await sleep(PARK_RETRY_MS);
    }
  } finally {
    answering.delete(key);
  }
}

function alreadyAnswered(p: PromptRow): RespondResult {
  const by = p.channel === "timeout" ? "by the countdown running out" : `by ${p.channel}`;
  return { success: false, message: `already answered ${by} (${p.action}) at ${p.answered_at}; this answer was not applied`, action: p.action! };
}

/** Record the timeout outcome (once) and apply what follows it; returns the prompt as recorded. */
async function closeByTimeout(ctx: CareContext, prompt: PromptRow): Promise<PromptRow> {
  const outcome = { answered_at: prompt.expires_at, channel: "timeout" as Channel, action: prompt.timeout_action };
  if (await claimOutcome(ctx.db, prompt.id, outcome)) await applyOutcomeEffects(ctx, prompt, { ...outcome, actor: "countdown" });
  return (await findPrompt(ctx.db, prompt.execution_id, prompt.step_id))!;
}

/**
 * The engine resumes a run whose countdown ran out by itself (merging the step's
 * on_timeout_data); on each resume, record the timeout outcome of that run's expired,
 * unanswered prompts. Started by the app once the engine runs; returns how to stop.
 */
export function watchPromptTimeouts(ctx: CareContext, engine: Pick<RunEngine, "live">): () => void {
  // Resumes only: the engine builds no other events for this watch.
  return engine.live.subscribe(
    (e) => {
      // Only a prompt's own wait can have left an expired prompt behind.
      const resumed = (e.resumed_steps ?? []) as Array<{ step_type: string | null }>;
      if (!resumed.some((s) => s.step_type === "interactive_prompt" || s.step_type === null)) return;
      void closeExpired(ctx, e.execution_id).catch((err) =>
        ctx.log.error({ err, execution_id: e.execution_id }, "interactive prompt: recording a timeout failed"),
      );
    },
    ["pipeline_resumed"],
  );
}

async function closeExpired(ctx: CareContext, executionId: number): Promise<void> {
  const { answering } = ctx.work;
  for (const p of await expiredUnanswered(ctx.db, executionId, isoNow(ctx.clock))) {
    if (!answering.has(keyOf(p.execution_id, p.step_id))) await closeByTimeout(ctx, p);
  }
}
