import type { z } from "zod";
import type { NewPrompt } from "../../_kit/care-services";
import type { StepHandler } from "../../_kit/handler-types";
import { promptFrame } from "../../_kit/prompt-frame";
import { DEFAULT_POPUP_MESSAGE, type spec } from "./interactive_prompt.node";

type Config = z.output<typeof spec.config>;

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
  return {
    wait_until: waitUntil,
    on_timeout_data: { [config.output_key]: { channel: "timeout", action: config.timeout_action, timestamp: expiresAt, raw_response: null } },
  };
};
