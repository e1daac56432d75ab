/**
 * What handlers receive and return. Handlers take a context (clock, logger, the care
 * services of `care-services.ts`) and return a result; they never import Node-RED or
 * `runtime/`, so they are tested without a runtime, with a fake of the services.
 */
import type { CareServices } from "./care-services";

/** Time as a handler reads it; the runtime's clock (which can also set timers) is one. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export type LogFn = (fields: Record<string, unknown>, message?: string) => void;

/** Structured logs: fields first, then the message (the runtime's pino logger is one). */
export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

/** The spec's trigger context. */
export interface TriggerContext {
  trigger_type: string;
  sensor_id: string | null;
  room_name: string | null;
  media_paths: string[];
  media_type: string | null;
  webhook_payload: Record<string, unknown> | null;
  occupancy_duration_minutes: number | null;
}

export interface HandlerContext<Services = CareServices> {
  clock: Clock;
  log: Logger;
  services: Services;
  /** Aborted when the run is cancelled or the step times out. */
  signal: AbortSignal;
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

/**
 * A step's behaviour. Flow steps that only compute (conditions, waits) return their result
 * directly, and the engine handles them without a turn of the event loop; anything that
 * waits on I/O returns a promise.
 */
export type StepHandler<C, S = CareServices> = (ctx: HandlerContext<S>, input: StepInput, config: C) => StepResult | Promise<StepResult>;

export interface FilterInput {
  trigger: TriggerContext;
  rule_id: number;
  negate: boolean;
}

export interface FilterResult {
  pass: boolean;
  /** Why the rule was held, shown in traces and webhook answers. */
  reason?: string;
}

export type FilterHandler<C, S = CareServices> = (ctx: HandlerContext<S>, input: FilterInput, config: C) => Promise<FilterResult>;

export interface ChannelMessage {
  alert_level: string;
  message: string;
  room_name: string | null;
  image_url: string | null;
  pipeline_data: Record<string, unknown>;
  execution_id: number | null;
  /** Sent with the message (e.g. the webhook's `Idempotency-Key`) so a receiver can drop a repeat. */
  idempotency_key: string | null;
}

export interface DeliveryReceipt {
  channel: string;
  delivered: boolean;
  detail?: string;
}

export type ChannelHandler<C, S = CareServices> = (ctx: HandlerContext<S>, message: ChannelMessage, config: C) => Promise<DeliveryReceipt>;
