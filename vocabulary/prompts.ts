/** A question put to the senior on her screen or by voice. */

export interface NewPrompt {
  execution_id: number;
  step_id: number;
  rule_id: number;
  message: string;
  output_key: string;
  timeout_action: "escalate" | "dismiss";
  auto_escalate: boolean;
  expires_at: string;
  created_at: string;
  /** The frame's texts, kept so a web app that connects while the prompt is open is shown it. */
  title: string;
  /** As rendered; "" for a voice-only prompt. */
  popup_message: string;
  voice_prompt: string | null;
  voice_instruction: string | null;
  escalate_button_text: string;
  dismiss_button_text: string;
}
