/**
 * The data a step is given and gives back, and a channel's receipt: plain types shared by the
 * handler signatures (handler-types.ts) and the care-services seam (care-services.ts).
 */
import type { DeliveryReceipt } from "../../vocabulary/notifications";

/** The spec's trigger context. */
export interface TriggerContext {
  trigger_type: string;
  sensor_id: string | null;
  room_name: string | null;
  media_paths: string[];
  media_type: string | null;
  webhook_payload: Record<string, unknown> | null;
  occupancy_duration_minutes: number | null;
  /** A person started the run (the editor's "Run now"): a rehearsal shows it apart, never compares it. */
  by_hand?: boolean;
  /** Who started it by hand: the editor user (admin, caregiver) or the API key's name. */
  started_by?: string;
}

export interface StepInput {
  pipeline_data: Record<string, unknown>;
  trigger: TriggerContext;
  step: { id: number; label: string; step_type: string };
  execution_id: number;
  rule_id: number;
  /**
   * The same for every execution of this step activation in this run (`run:step:activation`),
   * also after a restart: what a side effect (an alert, a webhook) is de-duplicated by.
   */
  idempotency_key: string;
}

/** The spec's step result; every field has the spec's default when absent. */
export interface StepResult {
  success?: boolean;
  data?: Record<string, unknown>;
  should_continue?: boolean;
  output_ports?: readonly string[];
  /** Epoch milliseconds at which a waiting run resumes. */
  wait_until?: number;
  /**
   * Merged into pipeline_data when the wait ends by its timer rather than by an answer
   * (an interactive prompt's timeout action, say). An answer instead merges what
   * `engine.answer()` is given.
   */
  on_timeout_data?: Record<string, unknown>;
  error?: string;
  /**
   * Something a person must see although the step did its job (a notification that reached
   * nobody): the step and its run are marked with it in REST, the live feed and the editor.
   */
  warning?: string;
  /** Per-channel delivery receipts of a sending step, kept with its record. */
  receipts?: readonly DeliveryReceipt[];
  /** What a person tracing the run wants to read: kept with the step's record. */
  trace?: StepTrace;
}

/**
 * A step's own account of what it did, for the run's timeline (the editor's runs view and
 * `/workflows/{id}/detail`): the message it rendered, the prompt and images it sent to a
 * model and the answer. Strings are cut to a readable length when recorded.
 */
export interface StepTrace {
  message?: string;
  prompt?: string;
  /** Media paths (relative to the data dir) of the images sent. */
  images?: readonly string[];
  answer?: string;
  model?: string;
}
