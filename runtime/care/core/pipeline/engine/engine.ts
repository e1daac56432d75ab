/**
 * The pipeline engine. Node-RED routes a run's messages along the rule's wires; the engine
 * counts them (delivery and completion hooks), runs each care step's handler, and keeps
 * the run's record: status, pipeline data, step records, ports, errors. A run is over when
 * none of its messages is in flight and no branch is parked.
 *
 * Waits park a branch in the store with its resume time; a timer (or, after a restart, the
 * recovery on start) resumes it by sending from the live node of the same id, so a redeploy
 * in between does not lose it. Sends always go through the live node instance for the same
 * reason.
 *
 * With several instances (`cluster.enabled`) each run belongs to the instance that runs or
 * parked it; whoever claims a parked run (its timeout, an answer, a cancel) takes it over, and
 * the runs of a dead instance are taken over by a survivor (run-adoption.ts).
 *
 * This class only composes the parts, each a handler of the shared EngineCore
 * (engine-core.ts): starting runs (run-start.ts), running steps (step-execution.ts,
 * step-outcome.ts), settling and ending (run-settling.ts), parked runs coming back
 * (held-runs.ts, run-resume.ts), cancels and timeouts (run-cancel.ts, run-timeout.ts).
 */
import type { CareServices } from "../../../../../nodes/_kit/care-services";
import type { RedMessage, RedNodeConfig, RedNodeInstance } from "../../../../../nodes/_kit/node-red/red-api";
import { isoNow } from "../../../../platform/core/clock";
import type { CareContext } from "../../context";
import type { RuleNodes } from "../../rules/rule-model";
import { everyPeriod } from "./clock-rounds";
import type { EngineCore, EngineRed, Send } from "./engine-core";
import { ExecutionStore } from "./execution-store";
import { HeldRuns } from "./held-runs";
import { LiveEvents } from "./live-events";
import { ParkSignals } from "./park-signals";
import { recoverRuns } from "./recovery";
import { startRunAdoption } from "./run-adoption";
import { cancel, cancelAskedElsewhere } from "./run-cancel";
import { RunDeadlines } from "./run-deadlines";
import { answer, continueFrom, whenParked } from "./run-resume";
import { onComplete, onDeliver, waitForRuns } from "./run-settling";
import { fire, rerun, startRun, type GateCheck } from "./run-start";
import { runTimedOut } from "./run-timeout";
import { onInput } from "./step-execution";
import type { FireRequest, FireResult, RunEngine, TriggerContext } from "./types";
import { executionWriter } from "./writers/execution-writer";

export type { EngineRed, GateCheck };

const HOOK = "careflow-engine";
/** How long a graceful stop waits for steps under way (a model call may take longer: it resumes after the restart). */
const STOP_GRACE_MS = 5000;

export class PipelineEngine implements RunEngine {
  readonly live = new LiveEvents();
  readonly store: ExecutionStore;
  private readonly core: EngineCore;
  private gates: GateCheck | null = null;
  /** The cluster's rounds: taking over dead instances' runs, acting on cancels asked elsewhere. */
  private readonly stopRounds: Array<() => Promise<void>> = [];

  constructor(
    private readonly ctx: CareContext,
    private readonly red: EngineRed,
    /** What handlers are given: the app's care services; a rehearsal's record instead of acting. */
    services: CareServices,
  ) {
    const handlerServices = services;
    const deadlines = new RunDeadlines(ctx.clock, (id) => runTimedOut(core, id));
    // A cluster is PostgreSQL only (refused on SQLite at start); a rehearsal's scratch store is never shared.
    const owner = ctx.cluster?.enabled && ctx.dialect === "postgres" ? ctx.cluster.instanceId : null;
    const store = new ExecutionStore(
      ctx.db,
      executionWriter(ctx.db, ctx.dialect, owner),
      () => isoNow(ctx.clock),
      (err, runs) => ctx.log.error({ err, runs }, "writing runs to the store failed"),
      owner,
    );
    const held = new HeldRuns(ctx, store, (run, due) => continueFrom(core, run, due));
    const core: EngineCore = { ctx, red, store, live: this.live, runs: new Map(), parks: new ParkSignals(), deadlines, held, services: handlerServices, owner };
    this.store = store;
    this.core = core;
  }

  setGates(gates: GateCheck): void {
    this.gates = gates;
  }

  /** Hook into Node-RED, fail runs a stop interrupted, and re-arm parked ones. */
  async start(): Promise<void> {
    const hooks = this.red.hooks();
    if (!hooks) throw new Error("the pipeline engine needs Node-RED running");
    const core = this.core;
    // One runtime per process: an engine attaching (a re-attached app in tests) takes the hooks over.
    hooks.remove(`*.${HOOK}`);
    hooks.add(`preDeliver.${HOOK}`, (e) => onDeliver(core, e));
    hooks.add(`onComplete.${HOOK}`, (e) => onComplete(core, e));
    await this.store.init();
    for (const p of await recoverRuns(this.ctx, core.owner)) core.held.arm(p.id, p.resume_at);
    const owner = core.owner;
    if (owner !== null) {
      const period = Math.max(1, Math.floor((this.ctx.settings.cluster.lease_seconds * 1000) / 3));
      this.stopRounds.push(startRunAdoption(this.ctx, owner, period, (runs) => runs.forEach((p) => core.held.arm(p.id, p.resume_at))));
      this.stopRounds.push(everyPeriod(this.ctx.clock, period, () => cancelAskedElsewhere(core)));
    }
  }

  /** Unhook from Node-RED, disarm timers and write what is queued (parked runs stay parked). */
  async stop(): Promise<void> {
    // A graceful stop lets the steps under way finish (briefly), so their runs are stored as
    // they ended; what is still running after that is recovered at the next start, as after a crash.
    await waitForRuns(this.core, (r) => r.pending > 0, STOP_GRACE_MS, "stopping while runs still had steps under way; they resume at the next start");
    this.red.hooks()?.remove(`*.${HOOK}`);
    for (const stop of this.stopRounds.splice(0)) await stop();
    this.core.held.stop();
    this.core.deadlines.stop();
    await this.store.drain();
    this.live.close();
  }

  /** No run is moving and no parked run is being read back or claimed (a rehearsal's replay waits for this). */
  quiet(): boolean {
    return this.core.runs.size === 0 && this.core.held.idle;
  }

  fire(req: FireRequest): Promise<FireResult> {
    return fire(this.core, this.gates, req);
  }

  startRun(rule: RuleNodes, trigger: TriggerContext, triggerInput: Record<string, unknown> | null, rerunOf: number | null): Promise<number> {
    return startRun(this.core, rule, trigger, triggerInput, rerunOf);
  }

  /** Called by every care node on input (see nodes/_kit/node-red/module.ts and step-execution.ts). */
  onInput(node: RedNodeInstance, config: RedNodeConfig, msg: RedMessage, send: Send, done: (err?: Error) => void): void {
    onInput(this.core, node, config, msg, send, done);
  }

  /**
   * The deploy gate: wait (briefly) until no run has a message travelling between nodes,
   * since Node-RED drops messages addressed to node instances a deploy replaces. Steps still
   * inside a handler are fine: their result is sent from the live node of the same id.
   */
  async drainInFlight(maxMs = 3000): Promise<void> {
    await waitForRuns(this.core, (r) => r.pending > r.in_handler, maxMs, "deploying while runs still had messages in flight");
  }

  /** An answer to a parked step (an interactive prompt, say): see run-resume.ts. */
  answer(id: number, stepId: number, data: Record<string, unknown>): Promise<"resumed" | "already_answered" | "not_waiting"> {
    return answer(this.core, id, stepId, data);
  }

  /** Resolves once the run parks a branch at this step (true), false when it is not running here or ends first. */
  whenParked(id: number, stepId: number, timeoutMs = 10_000): Promise<boolean> {
    return whenParked(this.core, id, stepId, timeoutMs);
  }

  /** Stop at the next step boundary; a parked run stops at once. Returns false when already over. */
  cancel(id: number): Promise<boolean> {
    return cancel(this.core, id);
  }

  rerun(id: number): Promise<number> {
    return rerun(this.core, id);
  }
}
