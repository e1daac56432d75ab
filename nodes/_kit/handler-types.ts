/**
 * What handlers receive and return. Handlers take a context (clock, logger, the care
 * services of `care-services.ts`) and return a result; they never import Node-RED or
 * `runtime/`, so they are tested without a runtime, with a fake of the services.
 */
import type { CareServices } from "./care-services";
import type { StepInput, StepResult, StepTrace, TriggerContext } from "./step-data";
import type { DeliveryReceipt } from "../../vocabulary/notifications";

export type { DeliveryReceipt, StepInput, StepResult, StepTrace, TriggerContext };

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

export interface HandlerContext<Services = CareServices> {
  clock: Clock;
  log: Logger;
  services: Services;
  /** Aborted when the run is cancelled or the step times out. */
  signal: AbortSignal;
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
  /** The alert this send belongs to (warnings, emergencies): what a chat's buttons act on. */
  alert_id?: number | null;
  /** 0: the first send; n: the alert's n-th re-send. */
  escalation?: number;
  /** The trigger's media (camera frames), relative to the data dir: the chat's photo. */
  media_paths?: string[];
  /** The chat whose command started the run (a `chat_app` trigger): the answer goes there. */
  reply_chat_id?: string | null;
}

export type ChannelHandler<C, S = CareServices> = (ctx: HandlerContext<S>, message: ChannelMessage, config: C) => Promise<DeliveryReceipt>;
