/**
 * The web app's `interactive_prompt` frame (docs/webapp.md), built from the prompt as it is
 * recorded: the step broadcasts it when it asks, and `/ws` sends it again to a client that
 * connects while the prompt is open. One builder, so the two can never differ.
 */
import type { NewPrompt } from "../../vocabulary/prompts";
import type { WebAppFrame } from "../../vocabulary/tablet";

/**
 * `countdown_seconds` is what is left at `nowMs`, rounded up (the whole countdown when the
 * step sends it); `countdown_total_seconds` is the step's countdown, for the bar.
 */
export function promptFrame(p: NewPrompt, nowMs: number): WebAppFrame {
  const expires = Date.parse(p.expires_at);
  return {
    type: "interactive_prompt",
    execution_id: p.execution_id,
    step_id: p.step_id,
    message: p.popup_message,
    title: p.title,
    escalate_button_text: p.escalate_button_text,
    dismiss_button_text: p.dismiss_button_text,
    countdown_seconds: Math.max(0, Math.ceil((expires - nowMs) / 1000)),
    countdown_total_seconds: Math.round((expires - Date.parse(p.created_at)) / 1000),
    expires_at: p.expires_at,
    ...(p.voice_prompt ? { voice_prompt: p.voice_prompt } : {}),
    ...(p.voice_instruction ? { voice_instruction: p.voice_instruction } : {}),
  };
}
