import type { z } from "zod";
import { NO_VOICE_MODEL } from "../../../vocabulary/voice";
import type { NewPrompt } from "../../../vocabulary/prompts";
import type { StepHandler } from "../../_kit/handler-types";
import { promptFrame } from "../../_kit/prompt-frame";
import { DEFAULT_POPUP_MESSAGE, type spec } from "./interactive_prompt.node";

type Config = z.output<typeof spec.config>;
type Ctx = Parameters<StepHandler<Config>>[0];

const filled = (s: string | undefined): s is string => s !== undefined && s.trim() !== "";

/**
 * Puts the question to every web-app client and parks the run for `countdown_seconds`.
 * The prompt is recorded (with the frame's texts, so a client connecting later is sent it
 * too) before it is broadcast, so an answer always finds it; answers
 * resume the run through the interactive service, and the countdown running out merges
 * `on_timeout_data` (channel `timeout`, action `timeout_action`).
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const data = input.pipeline_data;
  const render = (text: string | undefined): string | undefined => (filled(text) ? ctx.services.templates.render(text, data).trim() : undefined);
  const voicePrompt = render(config.voice_prompt_template);
  const voiceInstruction = render(config.voice_instruction);
  // A popup message that renders to nothing still asks; only a voice-only prompt has none.
  const message = filled(config.popup_message_template) ? render(config.popup_message_template) || DEFAULT_POPUP_MESSAGE : "";
  const now = ctx.clock.now();
  const waitUntil = now + config.countdown_seconds * 1000;
  const expiresAt = new Date(waitUntil).toISOString();
  const prompt: NewPrompt = {
    execution_id: input.execution_id,
    step_id: input.step.id,
    rule_id: input.rule_id,
    message: message || voicePrompt || "",
    output_key: config.output_key,
    timeout_action: config.timeout_action,
    auto_escalate: config.auto_escalate,
    expires_at: expiresAt,
    created_at: new Date(now).toISOString(),
    title: config.popup_title,
    popup_message: message,
    voice_prompt: voicePrompt ?? null,
    voice_instruction: voiceInstruction ?? null,
    escalate_button_text: config.escalate_button_text,
    dismiss_button_text: config.dismiss_button_text,
  };
  await ctx.services.prompts.record(prompt);
  const clients = ctx.services.webapp.broadcast(promptFrame(prompt, now));
  if (clients === 0)
    ctx.log.warn(
      { execution_id: input.execution_id, step_id: input.step.id },
      "interactive prompt: no web-app client is connected; one that connects before the countdown runs out is shown it",
    );
  else if (voicePrompt) await askAloud(ctx, voicePrompt, voiceInstruction ?? null, { execution_id: input.execution_id, step_id: input.step.id, config });
  return {
    wait_until: waitUntil,
    on_timeout_data: { [config.output_key]: { channel: "timeout", action: config.timeout_action, timestamp: expiresAt, raw_response: null } },
  };
};

/**
 * The voice prompt, spoken: the voice companion asks it and may answer the prompt with what
 * the senior says; without a realtime model, or when it cannot be reached, the TTS voice says
 * it and the buttons answer. Either way the countdown runs; what happened is in the run's log.
 */
async function askAloud(ctx: Ctx, text: string, instruction: string | null, p: { execution_id: number; step_id: number; config: Config }): Promise<void> {
  const where = { execution_id: p.execution_id, step_id: p.step_id };
  let why = NO_VOICE_MODEL;
  if (ctx.services.webapp.realtimeConfigured()) {
    const prompt = {
      execution_id: p.execution_id,
      step_id: p.step_id,
      dismiss_text: p.config.dismiss_button_text,
      escalate_text: p.config.escalate_button_text,
    };
    const talking = await ctx.services.webapp.converse({ reason: "prompt", text, instruction, prompt }, ctx.signal);
    if (talking.ok) return ctx.log.info({ ...where, session_id: talking.value.session_id }, "interactive prompt: the voice companion asks it");
    why = talking.reason;
  }
  const spoken = await ctx.services.webapp.announce({ text, mode: "stream" }, ctx.signal);
  const said = spoken.ok ? "the TTS voice says it" : `it is not spoken (${spoken.reason})`;
  ctx.log.warn({ ...where }, `interactive prompt: fallback: ${why}; ${said}, the buttons answer it`);
}
