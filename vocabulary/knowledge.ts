/** What the family teaches: cards delivered to the senior and quizzes started. */
import type { DeliveryReceipt } from "./notifications";

/** Where an info card goes: the web app's screen, the e-ink displays, the voice companion. */
export type CardChannel = "pwa" | "eink" | "voice";

export interface CardDeliveryRequest {
  card_id: number;
  channels: readonly CardChannel[];
  /** E-ink sensor ids; empty: the displays the notification step would pick. */
  eink_targets: readonly string[];
  eink_expiry_minutes: number;
  /** Overrides the card's own voice instruction. */
  voice_instruction: string | null;
  rule_id: number | null;
  execution_id: number | null;
  step_id: number | null;
}

export interface CardDelivered {
  delivery_id: number;
  card_title: string;
  /** One per channel asked for, in the request's order. */
  receipts: DeliveryReceipt[];
}

export interface QuizStartRequest {
  quiz_id: number;
  /** The person quizzed; null: the household's one senior. */
  senior_id: string | null;
  /** Minutes: the same quiz run for this senior within them is not started again (0: never skipped). */
  dedupe_minutes: number;
  /** Minutes an unanswered session stays open. */
  timeout_minutes: number;
  voice_instruction: string | null;
  rule_id: number | null;
  execution_id: number | null;
  step_id: number | null;
}

export type QuizStarted =
  | {
      started: true;
      session_id: number;
      quiz_title: string;
      question_count: number;
      /** ISO-8601: when an unanswered session times out. */
      expires_at: string;
      /** What is left in the run's data while it waits (and if it times out). */
      timed_out_data: Record<string, unknown>;
      /** Web app clients shown the first question. */
      clients: number;
      /** How the voice companion took part (or why it did not). */
      voice: string;
    }
  | { started: false; reason: string; previous_session_id: number; previous_started_at: string };
