/**
 * Starting a run: a firing passes the rule's gates, the rule is snapshotted, the run's row is
 * created (written by group commit) and a message carrying only the run's id goes into the
 * rule's trigger node. A rerun starts the same rule again with the first run's trigger.
 */
import { isoNow } from "../../../../platform/core/clock";
import { NotFoundError } from "../../../../platform/core/errors";
import { currentWeather } from "../../../../household/hub/hub-services";
import type { RuleNodes } from "../../rules/rule-model";
import { findRule } from "../../rules/rule-read";
import { emit, type EngineCore, type LiveNode } from "./engine-core";
import { graphSummary, snapshotRule } from "./graph-snapshot";
import { initialPipelineData } from "./pipeline-data";
import { newRunState, type RunState } from "./run-state";
import { fail, settle } from "./run-settling";
import { armRunTimeout } from "./run-timeout";
import type { FireRequest, FireResult, TriggerContext } from "./types";

/** Gates a firing must pass; supplied by the gate layer. */
export type GateCheck = (req: FireRequest, rule: RuleNodes) => Promise<{ pass: true } | { pass: false; reason: string }>;

export async function fire(core: EngineCore, gates: GateCheck | null, req: FireRequest): Promise<FireResult> {
  const rule = await ruleToFire(core, req.rule_id);
  if (rule.tab.disabled === true) return { execution_id: null, reason: "the rule is disabled" };
  if (!req.skip_gates && gates) {
    const gate = await gates(req, rule);
    if (!gate.pass) {
      core.ctx.log.debug({ rule_id: req.rule_id, reason: gate.reason }, "rule held");
      return { execution_id: null, reason: gate.reason };
    }
  }
  return { execution_id: await startRun(core, rule, req.trigger, req.trigger_input ?? null, null) };
}

/**
 * The rule as this instance runs it: a deploy made through another instance reaches it by its
 * notice, so a firing does not first look for one (with several instances that was a read of
 * the store per run). A rule not known here yet, made elsewhere a moment ago, is looked up
 * again after looking.
 */
async function ruleToFire(core: EngineCore, id: number): Promise<RuleNodes> {
  const running = await core.ctx.flows.snapshot({ catchUp: false });
  try {
    return findRule(running.flows, running.index, id);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const stored = await core.ctx.flows.snapshot();
    return findRule(stored.flows, stored.index, id);
  }
}

export async function startRun(
  core: EngineCore,
  rule: RuleNodes,
  trigger: TriggerContext,
  triggerInput: Record<string, unknown> | null,
  rerunOf: number | null,
): Promise<number> {
  const { ctx, red, store } = core;
  const graph = snapshotRule(rule);
  // A firing in the middle of a deploy (the editor's, a rule saved over REST, another
  // instance's) finds the rule's flow stopped: it waits for the new flows rather than fail.
  if (graph.trigger_node_id && !red.getNode(graph.trigger_node_id)) await red.flowsRunning();
  // One instance has an id at hand; a cluster instance fetches it from the shared sequence (one statement per turn).
  while (!store.hasId()) await store.reserveIds();
  const startedAt = isoNow(ctx.clock);
  const now = ctx.clock.now();
  const state = newRunState(
    graph,
    trigger,
    initialPipelineData(trigger, triggerInput, now, ctx.settings.app.timezone, currentWeather(ctx)),
    startedAt,
    now,
    rerunOf,
  );
  // Its rows are written by group commit: a run of flow steps that ends quickly is written
  // once, ended; a step that acts on the world waits for the row first (step-execution.ts).
  const run: RunState = store.create(state);
  const id = run.id;
  core.runs.set(id, run);
  emit(core, run, "pipeline_started", null, graphSummary(graph));
  armRunTimeout(core, run);
  const trig = graph.trigger_node_id ? red.getNode<LiveNode>(graph.trigger_node_id) : undefined;
  if (!trig) {
    fail(run, "the rule's flow is not running (is the rule disabled?)");
    await settle(core, run);
    return id;
  }
  run.pending++;
  trig.receive({ _careflow: { execution_id: id } });
  return id;
}

/** The run's rule (as it is now) started again with the run's trigger and input. */
export async function rerun(core: EngineCore, id: number): Promise<number> {
  const row = await core.store.get(id);
  if (!row) throw new Error(`execution ${id} not found`);
  const { flows, index } = await core.ctx.flows.snapshot();
  const rule = findRule(flows, index, row.rule_id);
  const input = (row.pipeline_data.trigger_input as Record<string, unknown> | null | undefined) ?? null;
  return startRun(core, rule, row.trigger_context, input, id);
}
