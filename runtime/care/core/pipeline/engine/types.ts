/**
 * The seams of the pipeline engine. Triggers (cron, sensor events, webhooks, occupancy, ...)
 * ask a `RuleFirer` to fire a rule; the firer applies the gates (filters, dependencies,
 * cool-off, daily limit) and, when they pass, starts an execution.
 */
import type { TriggerContext } from "../../../../../nodes/_kit/handler-types";
import type { ExecutionRow } from "./execution-rows";
import type { LiveEvents } from "./live-events";

export type { TriggerContext };

export interface FireRequest {
  rule_id: number;
  trigger: TriggerContext;
  /** Webhook or chat payload, also placed at `pipeline_data.trigger_input`. */
  trigger_input?: Record<string, unknown> | null;
  /** Skip the gates (manual runs and reruns are the caregiver's explicit choice). */
  skip_gates?: boolean;
}

export type FireResult = { execution_id: number } | { execution_id: null; reason: string };

export interface RuleFirer {
  fire(req: FireRequest): Promise<FireResult>;
}

/**
 * What services may ask of the running engine: the app's context holds it as this, so the
 * context does not depend on the engine's class (nor the engine's imports on the context).
 */
export interface RunEngine extends RuleFirer {
  readonly live: Pick<LiveEvents, "subscribe" | "wants">;
  readonly store: {
    flushQueued(): Promise<void>;
    whenWritten(id: number): Promise<void>;
    whenRulesWritten(ruleIds: readonly number[]): Promise<void>;
    get(id: number): Promise<ExecutionRow | undefined>;
  };
  answer(id: number, stepId: number, data: Record<string, unknown>): Promise<"resumed" | "already_answered" | "not_waiting">;
  whenParked(id: number, stepId: number, timeoutMs?: number): Promise<boolean>;
  cancel(id: number): Promise<boolean>;
  rerun(id: number): Promise<number>;
  drainInFlight(maxMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A trigger context with the spec's defaults for what the caller does not know. */
export const triggerContext = (partial: Partial<TriggerContext> & Pick<TriggerContext, "trigger_type">): TriggerContext => ({
  sensor_id: null,
  room_name: null,
  media_paths: [],
  media_type: null,
  webhook_payload: null,
  occupancy_duration_minutes: null,
  ...partial,
});

export type GateResult = { pass: true } | { pass: false; reason: string };
