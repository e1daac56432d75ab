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
 */
import type { CareContext } from "../../context";
import { isoNow } from "../../../platform/core/clock";
import { NotFoundError } from "../../../platform/core/errors";
import type { RedNodeInstance, RedMessage, RedNodeConfig } from "../../../../nodes/_kit/node-red/red-api";
import { stepSpecOfNode } from "../../rules/care-types";
import { findRule } from "../../rules/rule-read";
import type { RuleNodes } from "../../rules/rule-model";
import { ExecutionStore } from "./execution-store";
import { RunDeadlines } from "./run-deadlines";
import { HeldRuns } from "./held-runs";
import { executionWriter } from "./writers/execution-writer";
import { graphSummary, snapshotRule, stepOfNode } from "./graph-snapshot";
import { LiveEvents } from "./live-events";
import type { RunState, Waiting } from "./run-state";
import type { CareServices } from "../../../../nodes/_kit/care-services";
import { careServices } from "../../care-services";
import type { FireRequest, FireResult, RunEngine, TriggerContext } from "./types";
import { initialPipelineData } from "./pipeline-data";
import { currentWeather } from "../../../household/hub/hub-services";
import { recoverRuns } from "./recovery";
import { startRunAdoption } from "./run-adoption";
import { everyPeriod } from "./clock-rounds";
import { newRunState, reviveRun } from "./run-state";
import { ParkSignals } from "./park-signals";
import { emit, type EngineCore, type EngineRed, type LiveNode, type Send } from "./engine-core";
import { onInput } from "./step-execution";
import { checkSettled, fail, finish, onComplete, onDeliver, settle, waitForRuns } from "./run-settling";
import { armRunTimeout, runTimedOut } from "./run-timeout";

export type { EngineRed };

/** Gates a firing must pass; supplied by the gate layer. */
export type GateCheck = (req: FireRequest, rule: RuleNodes) => Promise<{ pass: true } | { pass: false; reason: string }>;

const HOOK = "careflow-engine";
/** How long a graceful stop waits for steps under way (a model call may take longer: it resumes after the restart). */
const STOP_GRACE_MS = 5000;

export class PipelineEngine implements RunEngine {
  readonly live = new LiveEvents();
  readonly store: ExecutionStore;
  private readonly runs = new Map<number, RunState>();
  private readonly parks = new ParkSignals();
  private readonly held: HeldRuns;
  private gates: GateCheck | null = null;
  private readonly deadlines: RunDeadlines;
  /** What step handlers are given: the app's care services, built once. */
  private readonly services: CareServices;
  /** This instance's id when the cluster is on: the owner of the runs it starts and claims. */
  private readonly owner: string | null;
  /** The cluster's rounds: taking over dead instances' runs, acting on cancels asked elsewhere. */
  private readonly stopRounds: Array<() => Promise<void>> = [];
  private readonly core: EngineCore;

  constructor(
    private readonly ctx: CareContext,
    private readonly red: EngineRed,
    /** What handlers are given; a rehearsal passes services that record instead of acting. */
    services?: CareServices,
  ) {
    this.services = services ?? careServices(ctx);
    this.deadlines = new RunDeadlines(ctx.clock, (id) => runTimedOut(this.core, id));
    // A cluster is PostgreSQL only (refused on SQLite at start); a rehearsal's scratch store is never shared.
    this.owner = ctx.cluster?.enabled && ctx.dialect === "postgres" ? ctx.cluster.instanceId : null;
    this.store = new ExecutionStore(
      ctx.db,
      executionWriter(ctx.db, ctx.dialect, this.owner),
      () => isoNow(ctx.clock),
      (err, runs) => ctx.log.error({ err, runs }, "writing runs to the store failed"),
      this.owner,
    );
    this.held = new HeldRuns(ctx, this.store, (run, due) => this.continueFrom(run, due));
    this.core = {
      ctx,
      red,
      store: this.store,
      live: this.live,
      runs: this.runs,
      parks: this.parks,
      deadlines: this.deadlines,
      held: this.held,
      services: this.services,
      owner: this.owner,
    };
  }

  setGates(gates: GateCheck): void {
    this.gates = gates;
  }

  /** Hook into Node-RED, fail runs a stop interrupted, and re-arm parked ones. */
  async start(): Promise<void> {
    const hooks = this.red.hooks();
    if (!hooks) throw new Error("the pipeline engine needs Node-RED running");
    // One runtime per process: an engine attaching (a re-attached app in tests) takes the hooks over.
    hooks.remove(`*.${HOOK}`);
    hooks.add(`preDeliver.${HOOK}`, (e) => onDeliver(this.core, e));
    hooks.add(`onComplete.${HOOK}`, (e) => onComplete(this.core, e));
    await this.store.init();
    for (const p of await recoverRuns(this.ctx, this.owner)) this.held.arm(p.id, p.resume_at);
    const owner = this.owner;
    if (owner !== null) {
      const period = Math.max(1, Math.floor((this.ctx.settings.cluster.lease_seconds * 1000) / 3));
      this.stopRounds.push(startRunAdoption(this.ctx, owner, period, (runs) => runs.forEach((p) => this.held.arm(p.id, p.resume_at))));
      this.stopRounds.push(everyPeriod(this.ctx.clock, period, () => this.cancelAskedElsewhere()));
    }
  }

  /** Unhook from Node-RED, disarm timers and write what is queued (parked runs stay parked). */
  async stop(): Promise<void> {
    // A graceful stop lets the steps under way finish (briefly), so their runs are stored as
    // they ended; what is still running after that is recovered at the next start, as after a crash.
    await waitForRuns(this.core, (r) => r.pending > 0, STOP_GRACE_MS, "stopping while runs still had steps under way; they resume at the next start");
    this.red.hooks()?.remove(`*.${HOOK}`);
    for (const stop of this.stopRounds.splice(0)) await stop();
    this.held.stop();
    this.deadlines.stop();
    await this.store.drain();
    this.live.close();
  }

  /** No run is moving and no parked run is being read back or claimed (a rehearsal's replay waits for this). */
  quiet(): boolean {
    return this.runs.size === 0 && this.held.idle;
  }

  // ---- firing -------------------------------------------------------------------------

  async fire(req: FireRequest): Promise<FireResult> {
    const rule = await this.ruleToFire(req.rule_id);
    if (rule.tab.disabled === true) return { execution_id: null, reason: "the rule is disabled" };
    if (!req.skip_gates && this.gates) {
      const gate = await this.gates(req, rule);
      if (!gate.pass) {
        this.ctx.log.debug({ rule_id: req.rule_id, reason: gate.reason }, "rule held");
        return { execution_id: null, reason: gate.reason };
      }
    }
    return { execution_id: await this.startRun(rule, req.trigger, req.trigger_input ?? null, null) };
  }

  /**
   * The rule as this instance runs it: a deploy made through another instance reaches it by its
   * notice, so a firing does not first look for one (with several instances that was a read of
   * the store per run). A rule not known here yet, made elsewhere a moment ago, is looked up
   * again after looking.
   */
  private async ruleToFire(id: number): Promise<RuleNodes> {
    const running = await this.ctx.flows.snapshot({ catchUp: false });
    try {
      return findRule(running.flows, running.index, id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      const stored = await this.ctx.flows.snapshot();
      return findRule(stored.flows, stored.index, id);
    }
  }

  async startRun(rule: RuleNodes, trigger: TriggerContext, triggerInput: Record<string, unknown> | null, rerunOf: number | null): Promise<number> {
    const graph = snapshotRule(rule);
    // A firing in the middle of a deploy (the editor's, a rule saved over REST, another
    // instance's) finds the rule's flow stopped: it waits for the new flows rather than fail.
    if (graph.trigger_node_id && !this.red.getNode(graph.trigger_node_id)) await this.red.flowsRunning();
    // One instance has an id at hand; a cluster instance fetches it from the shared sequence (one statement per turn).
    while (!this.store.hasId()) await this.store.reserveIds();
    const startedAt = isoNow(this.ctx.clock);
    const now = this.ctx.clock.now();
    const state = newRunState(
      graph,
      trigger,
      initialPipelineData(trigger, triggerInput, now, this.ctx.settings.app.timezone, currentWeather(this.ctx)),
      startedAt,
      now,
      rerunOf,
    );
    // Its rows are written by group commit: a run of flow steps that ends quickly is written
    // once, ended; a step that acts on the world waits for the row first (see execute).
    const run: RunState = this.store.create(state);
    const id = run.id;
    this.runs.set(id, run);
    emit(this.core, run, "pipeline_started", null, graphSummary(graph));
    armRunTimeout(this.core, run);
    const trig = graph.trigger_node_id ? this.red.getNode<LiveNode>(graph.trigger_node_id) : undefined;
    if (!trig) {
      fail(run, "the rule's flow is not running (is the rule disabled?)");
      await settle(this.core, run);
      return id;
    }
    run.pending++;
    trig.receive({ _careflow: { execution_id: id } });
    return id;
  }

  // ---- steps ---------------------------------------------------------------------------

  /** Called by every care node on input (see nodes/_kit/node-red/module.ts); see step-execution.ts. */
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

  // ---- waits -------------------------------------------------------------------------------

  /**
   * An answer to a parked step (an interactive prompt, say): the first answer per run and
   * step wins; it is merged into pipeline_data, the step's timeout is cancelled and the run
   * continues at once. Later answers get `already_answered` and change nothing.
   */
  async answer(id: number, stepId: number, data: Record<string, unknown>): Promise<"resumed" | "already_answered" | "not_waiting"> {
    // The answer may come while the run is still parking this branch (the prompt went out
    // first): the run is in memory then, and the branch continues from here.
    const live = this.runs.get(id);
    if (live && live.status === "running") {
      const parkedHere = live.waiting.find((w) => w.step_id === stepId);
      if (!parkedHere) return live.steps.some((r) => r.step_id === stepId && r.status !== "waiting") ? "already_answered" : "not_waiting";
      Object.assign(live.pipeline_data, data);
      await this.continueFrom(live, [parkedHere]);
      return "resumed";
    }
    const row = await this.store.get(id);
    if (!row) return "not_waiting";
    const parked = row.waiting.find((w) => w.step_id === stepId);
    if (row.status !== "waiting" || !parked) {
      const answered = row.step_records.some((r) => r.step_id === stepId && r.status !== "waiting" && r.status !== "running");
      return answered ? "already_answered" : "not_waiting";
    }
    // Claimed meanwhile (by another answer, or to resume on time): asking again will tell.
    if (
      !(await this.store.claimResume(
        id,
        row.waiting.filter((w) => w !== parked),
        row.updated_at,
      ))
    )
      return "not_waiting";
    this.held.drop(id);
    const run = reviveRun(row, this.ctx.clock.now());
    Object.assign(run.pipeline_data, data);
    return (await this.continueFrom(run, [parked])) ? "resumed" : "not_waiting";
  }

  /**
   * Resolves once the run parks a branch at this step (true), or at once when it already has;
   * false when the run is not running here or ends first. For answers that arrive while the
   * step that asks is still running.
   */
  whenParked(id: number, stepId: number, timeoutMs = 10_000): Promise<boolean> {
    const live = this.runs.get(id);
    if (!live || live.status !== "running") return Promise.resolve(false);
    if (live.waiting.some((w) => w.step_id === stepId)) return Promise.resolve(true);
    return this.parks.wait(id, stepId, timeoutMs);
  }

  private async continueFrom(run: RunState, due: Waiting[]): Promise<boolean> {
    // A wait that falls due in the middle of a deploy waits for its step to be there again.
    if (due.some((w) => !this.red.getNode(w.node_id))) await this.red.flowsRunning();
    const id = run.id;
    run.waiting = run.waiting.filter((w) => !due.some((d) => d.step_id === w.step_id && d.node_id === w.node_id));
    this.runs.set(id, run);
    armRunTimeout(this.core, run);
    // Which steps' waits ended, so a listener can tell whether a resume concerns it.
    emit(this.core, run, "pipeline_resumed", "waiting", {
      resumed_steps: due.map((w) => ({ step_id: w.step_id, step_type: stepOfNode(run.graph, w.node_id)?.step_type ?? null })),
    });
    run.pending++;
    for (const w of due) {
      const node = this.red.getNode<LiveNode>(w.node_id);
      const spec = node ? stepSpecOfNode((node as unknown as { type: string }).type) : undefined;
      if (!node || !spec) {
        fail(run, `the step a wait was parked at (node ${w.node_id}) is no longer in the rule`);
        continue;
      }
      run.activated_ports.push(...w.ports.map((p) => `${w.step_id}:${p}`));
      const record = run.steps.findLast((r) => r.step_id === w.step_id && r.status === "waiting");
      if (record) Object.assign(record, { status: record.success ? "success" : "failed", output_ports: w.ports });
      const out = spec.outputPorts.map((p) => (w.ports.includes(p) ? { _careflow: { execution_id: id } } : null));
      if (out.some(Boolean)) node.send(out);
    }
    run.pending--;
    // The claim already wrote it as running; the next step's record or its end writes the rest.
    checkSettled(this.core, run);
    return true;
  }

  // ---- cancel and rerun --------------------------------------------------------------------

  /** Stop at the next step boundary; a parked run stops at once. Returns false when already over. */
  async cancel(id: number): Promise<boolean> {
    const run = this.runs.get(id);
    if (run) {
      run.cancel_requested = true;
      run.abort?.abort(new Error("run cancelled"));
      checkSettled(this.core, run);
      return true;
    }
    // In a cluster the run may be running on, or just parking at, another instance: a few tries.
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.store.get(id);
      if (!row) return false;
      if (row.status === "running" && this.owner !== null) {
        if (await this.store.requestCancel(id)) return true;
        continue;
      }
      if (row.status !== "waiting") return false;
      this.held.drop(id);
      if (!(await this.store.claimResume(id, [], row.updated_at))) {
        if (this.owner !== null) continue;
        return false;
      }
      const revived = reviveRun(row, this.ctx.clock.now());
      revived.waiting = [];
      revived.status = "running";
      await finish(this.core, revived, "cancelled");
      return true;
    }
    return false;
  }

  /** Cluster: the runs of this instance cancelled through another instance stop here. */
  private async cancelAskedElsewhere(): Promise<void> {
    try {
      for (const id of await this.store.cancelRequests()) await this.cancel(id);
    } catch (err) {
      this.ctx.log.warn({ err }, "looking for cancels asked through other instances failed (tried again shortly)");
    }
  }

  async rerun(id: number): Promise<number> {
    const row = await this.store.get(id);
    if (!row) throw new Error(`execution ${id} not found`);
    const { flows, index } = await this.ctx.flows.snapshot();
    const rule = findRule(flows, index, row.rule_id);
    const input = (row.pipeline_data.trigger_input as Record<string, unknown> | null | undefined) ?? null;
    return this.startRun(rule, row.trigger_context, input, id);
  }
}
