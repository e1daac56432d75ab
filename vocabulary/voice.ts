/** A conversation of the voice companion with the senior. */

/** A conversation for the voice companion to start (or to add to the one going on). */
export interface ConverseRequest {
  /** What started it: a notification, an interactive prompt, the senior (Talk), the REST API. */
  reason: "notification" | "prompt" | "senior" | "api";
  /** What the companion should tell or ask first; none: it greets and listens. */
  text: string | null;
  /** How to speak (the step's voice_instruction); added to the base instruction. */
  instruction: string | null;
  /** The prompt this conversation asks: the companion may answer it (respond_to_interactive_prompt) for this run and step only. */
  prompt?: { execution_id: number; step_id: number; dismiss_text: string; escalate_text: string };
  /** The quiz session this conversation runs: the companion gets the quiz tools for it (and only it). */
  quiz?: { session_id: number };
}

export interface Conversing {
  session_id: string;
  model: string;
  /** Web app clients it talks in. */
  clients: number;
  /** True when it was added to a conversation already going on. */
  joined: boolean;
}

/** Why the voice companion cannot talk: the household has no realtime voice model (`llm.realtime`). */
export const NO_VOICE_MODEL = "no voice model is set up for the voice companion";
