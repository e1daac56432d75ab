/**
 * What the engine's parts share: the app's context, Node-RED, the store and the runs moving on
 * this instance. Each engine (the app's, a rehearsal's) builds its own, and the parts are
 * handlers that take it, so no part keeps state of its own outside it.
 */
import type { CareServices } from "../../../../../nodes/_kit/care-services";
import type { RedHooks } from "../../../../platform/nodered/red";
import type { RedMessage, RedNodeInstance } from "../../../../../nodes/_kit/node-red/red-api";
import type { CareContext } from "../../context";
import type { ExecutionStore } from "./execution-store";
import type { HeldRuns } from "./held-runs";
import { runEvent, type LiveEvents, type PipelineEventType } from "./live-events";
import type { ParkSignals } from "./park-signals";
import type { RunDeadlines } from "./run-deadlines";
import type { RunState } from "./run-state";

/** What the engine needs of the embedded Node-RED. */
export interface EngineRed {
  hooks(): RedHooks | undefined;
  getNode<T>(id: string): T | undefined;
  /** Resolves once a deploy under way runs its flows (at once when none is), or after the bound on a start. */
  flowsRunning(): Promise<void>;
}

/** A node instance as the engine sends from it. */
export interface LiveNode extends RedNodeInstance {
  receive(msg: RedMessage): void;
  send(msg: RedMessage | Array<RedMessage | null>): void;
}

export type Send = (m: RedMessage | Array<RedMessage | null>) => void;

export interface EngineCore {
  readonly ctx: CareContext;
  readonly red: EngineRed;
  readonly store: ExecutionStore;
  readonly live: LiveEvents;
  /** The runs moving on this instance; a parked run is in the store (and held near its time). */
  readonly runs: Map<number, RunState>;
  readonly parks: ParkSignals;
  readonly deadlines: RunDeadlines;
  readonly held: HeldRuns;
  /** What step handlers are given: the app's care services, built once. */
  readonly services: CareServices;
  /** This instance's id when the cluster is on: the owner of the runs it starts and claims. */
  readonly owner: string | null;
}

type Careflow = { execution_id: number };
/** The run a message belongs to: it carries only the run's id. */
export const runOf = (msg: Record<string, unknown> | undefined): number | undefined => (msg?._careflow as Careflow | undefined)?.execution_id;

/** A run's event on the live feed, built only when someone listens for its type. */
export function emit(core: EngineCore, run: RunState, event_type: PipelineEventType, previous: string | null, extra: Record<string, unknown> = {}): void {
  if (core.live.wants(event_type)) core.live.emit(runEvent(run, event_type, previous, extra, core.ctx.clock.now(), run.started_ms));
}
