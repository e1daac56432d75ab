/**
 * `POST /rules/{id}/rehearse` (issue 27): the rule, or a draft of it, run against the input
 * journal of a window on a clock of its own, in a scratch household, with every effect kept as
 * "would send"; answered with the runs it would have made beside the runs the deployed rule
 * actually made, and the difference between them.
 */
import type { Knex } from "knex";
import { z } from "zod";
import type { CareContext } from "../../core/context";
import { ValidationError } from "../../../platform/core/errors";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { parseInput } from "../../../platform/core/validation";
import { listPersons } from "../../../household/persons/persons.service";
import { listLocationChangesBetween } from "../../../household/tracking/location-history.store";
import { applySignalAck, copySignalsInto, type TimedSignalAck } from "../../../household/tracking/signals.store";
import type { PersonSighting } from "../../../platform/core/event-bus";
import { readEntries, type JournalEntry } from "../../core/journal/journal.store";
import { PipelineEngine } from "../../core/pipeline/engine/engine";
import type { ExecutionRow } from "../../core/pipeline/engine/execution-rows";
import { copyRunsInto, runsOfRulesBetween } from "../../core/pipeline/engine/run-copies";
import { ruleGates } from "../../core/pipeline/gates/check-gates";
import { careServices } from "../../services/care-services";
import { startTriggers } from "../../core/pipeline/triggers/start-triggers";
import { findRule, listDependencies, listRules } from "../../core/rules/rule-read";
import { bundleTabNodes } from "../../core/rules/bundles/bundle-import";
import { checkRuleTab } from "../../core/rules/rule-tab-checks";
import { readHouseholdNames } from "../../core/rules/household-names";
import { placeRules } from "../../core/rules/rule-copy";
import { isTriggerNode } from "../../core/rules/care-types";
import { MiniRed } from "./mini-red";
import { findPrompt, isAnswerChannel } from "../../../household/prompts/prompts.store";
import { rehearsalServices, type RecordedPromptAnswer } from "./rehearsal-services";
import { replay, ReplayTimeout, type ReplayItem } from "./replay";
import { compareRuns, summarizeRun, type RehearsalComparison, type RunSummary } from "./run-compare";
import { openScratch } from "./scratch-context";
import { ReplayedLocations } from "./replayed-locations";
import { EffectLog, type NotRehearsed, type ReplayedAnswer } from "./would-send";
import { startedByHand } from "../../core/pipeline/runs/hand-start";

const DAY_MS = 86_400_000;
/** The longest window: the editor offers 24 h, 3 nights and 7 days. */
export const MAX_WINDOW_DAYS = 7;
/** How far before the window the gates look back (cool-off, daily limit, dependencies). */
const LOOKBACK_MS = DAY_MS;
const JOURNAL_PAGE = 5000;
/** Real time a rehearsal may take before it is given up. */
const BUDGET_MS = 60_000;

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO-8601 date-time");
/** The editor's unsaved tab: the tab node and its nodes, as Node-RED exports them. */
const draftFlows = z.object({ flows: z.array(z.object({ id: z.string().min(1), type: z.string().min(1) }).passthrough()).min(1) }).strict();

export const rehearseBody = z
  .object({
    from: isoDate,
    to: isoDate.optional(),
    /** The editor's unsaved tab (`{flows}`), or the rule as a bundle (the body `POST /rules/import` takes). */
    draft: z.record(z.string(), z.unknown()).optional(),
    call_models: z.boolean().default(false),
  })
  .strict();

export interface RehearsalAnswer extends RehearsalComparison {
  /** Null for a new tab not deployed yet (the editor's "Draft from words"). */
  rule_id: number | null;
  rule_name: string;
  draft: boolean;
  from: string;
  to: string;
  /** Recorded inputs in the window that could reach the rule's trigger. */
  inputs_replayed: number;
  rehearsed: RunSummary[];
  /** The runs its triggers started; what `difference` compares the rehearsal with. */
  actual: RunSummary[];
  /** Runs a person started ("Run now", execute, rerun): shown apart, never compared (no input of the journal made them). */
  hand_started: RunSummary[];
  not_rehearsed: NotRehearsed[];
  /** Answers a rehearsed run took from the recorded run of the same input (a model's, the senior's to a prompt). */
  recorded_answers: ReplayedAnswer[];
  warnings: string[];
  elapsed_ms: number;
}

/** The draft's nodes on the rule's own tab id, so it keeps the rule's id and step ids. */
function draftOnTab(flows: readonly FlowNode[], tabId: string): FlowNode[] {
  const tabs = flows.filter((n) => n.type === "tab");
  if (tabs.length !== 1) throw new ValidationError("draft.flows: must hold exactly one tab (the rule's tab and its nodes)");
  const draftTab = tabs[0].id;
  return flows.map((n) => (n.id === draftTab ? { ...n, id: tabId } : n.z === draftTab ? { ...n, z: tabId } : { ...n }));
}

/** The draft's nodes, from the editor's tab or from a bundle (checked as an import would be, the rule's own name allowed). */
async function draftNodes(ctx: CareContext, draft: Record<string, unknown>, ruleId: number | null): Promise<FlowNode[]> {
  if ("flows" in draft) return parseInput(draftFlows, draft, "draft").flows as FlowNode[];
  const { report, nodes } = await bundleTabNodes(ctx, draft, { sameRule: ruleId, field: "draft" });
  if (!nodes) throw new ValidationError(`draft: ${report.errors.join("; ")}`);
  return nodes;
}

async function journalOf(ctx: CareContext, from: string, to: string): Promise<JournalEntry[]> {
  // The inputs of the last moments may still be queued (the journal writes at most every 100 ms).
  await ctx.journal?.flush();
  const out: JournalEntry[] = [];
  for (let after: number | undefined; ;) {
    const page = await readEntries(ctx.db, { from, to, limit: JOURNAL_PAGE, ...(after === undefined ? {} : { after_id: after }) });
    out.push(...page);
    if (page.length < JOURNAL_PAGE) return out;
    after = page[page.length - 1].id;
  }
}

/**
 * `ruleId` null: a new rule's tab, never deployed (the editor's "Draft from words"): the draft
 * is required, keeps its own tab id, and has no recorded runs beside it.
 */
export async function rehearseRule(ctx: CareContext, ruleId: number | null, body: unknown): Promise<RehearsalAnswer> {
  const started = Date.now();
  const req = parseInput(rehearseBody, body);
  const now = ctx.clock.now();
  const fromMs = Date.parse(req.from);
  const toMs = Math.min(req.to === undefined ? now : Date.parse(req.to), now);
  if (!(fromMs < toMs)) throw new ValidationError("from: must be before to (and before now)");
  if (toMs - fromMs > MAX_WINDOW_DAYS * DAY_MS + 3_600_000) throw new ValidationError(`to: the window may be at most ${MAX_WINDOW_DAYS} days`);
  const from = new Date(fromMs).toISOString();
  const to = new Date(toMs).toISOString();

  const { flows, index } = await ctx.flows.snapshot();
  if (ruleId === null && !req.draft) throw new ValidationError("draft: required for a rule that is not deployed yet");
  const drafted = req.draft ? await draftNodes(ctx, req.draft, ruleId) : null;
  const tabId = ruleId === null ? String(drafted!.find((n) => n.type === "tab")?.id ?? "") : findRule(flows, index, ruleId).tab.id;
  const liveTab = flows.filter((n) => n.id === tabId || n.z === tabId);
  const tabNodes = drafted ? draftOnTab(drafted, tabId) : liveTab;
  if (req.draft) {
    const merged = [...flows.filter((n) => n.id !== tabId && n.z !== tabId), ...tabNodes];
    const errors = checkRuleTab(merged, tabId, await readHouseholdNames(ctx), ctx.settings).filter((p) => p.severity === "error");
    if (errors.length) throw new ValidationError(`draft: ${errors.map((e) => (e.step_label ? `step '${e.step_label}': ${e.message}` : e.message)).join("; ")}`);
  }
  // The rule's dependencies are placed beside it, disabled: their recorded runs answer its dependency gate.
  const deps = ruleId === null ? [] : await listDependencies(ctx, ruleId);
  const depIds = [...new Set(deps.map((d) => d.depends_on_rule_id))];
  const depTabs = depIds.flatMap((id) => {
    const r = index.rules.find((row) => row.id === id);
    if (!r) return [];
    const tab = flows.find((n) => n.id === r.tab_id);
    const trigger = flows.find((n) => n.z === r.tab_id && isTriggerNode(n.type));
    return tab && trigger ? [{ ...tab, disabled: true }, trigger] : [];
  });

  // A millisecond early, so that a cron tick at `from` itself falls inside the window.
  // Runs are written by group commit: the recorded runs read below include the ones still queued.
  await ctx.engine?.store.flushQueued();
  const scratch = await openScratch(ctx, fromMs - 1);
  try {
    const sctx = scratch.ctx;
    await placeRules(ctx.db, sctx.db, ruleId === null ? depIds : [ruleId, ...depIds], [...tabNodes, ...depTabs], from);
    // Each signal as it stood at the window's start; an acknowledgment made later is replayed at its time.
    const acks = await copySignalsInto(ctx.db, sctx.db, new Date(fromMs - LOOKBACK_MS).toISOString(), to, from);
    // What the gates look back on: the rule's runs before the window, its dependencies' runs up to its end.
    const before = ruleId === null ? [] : await runsOfRulesBetween(ctx.db, [ruleId], new Date(fromMs - LOOKBACK_MS).toISOString(), from);
    const depRuns = await runsOfRulesBetween(ctx.db, depIds, new Date(fromMs - LOOKBACK_MS).toISOString(), to);
    const ended = (r: ExecutionRow) => r.status === "completed" || r.status === "failed" || r.status === "cancelled";
    const copied = new Set([...before, ...depRuns].filter(ended).map((r) => r.id));
    await copyRunsInto(ctx.db, sctx.db, [...copied]);
    const recorded = ruleId === null ? [] : await runsOfRulesBetween(ctx.db, [ruleId], from, to);
    const actualRuns = recorded.filter((r) => !startedByHand(r));

    const effects = new EffectLog(() => scratch.clock.now());
    const red = new MiniRed(tabNodes);
    // eslint-disable-next-line prefer-const -- the services need the engine, which needs them
    let engine: PipelineEngine;
    const recordedRunOf = async (id: number) => {
      const run = await engine.store.get(id);
      return run ? recordedMatch(run, actualRuns) : null;
    };
    const answering = new Set<Promise<unknown>>();
    // The scratch home's own services: filters read the home through them as it is.
    const real = careServices(sctx);
    const services = rehearsalServices(sctx, real, {
      effects,
      callModels: req.call_models,
      recordedRunOf,
      recordedPromptAnswer: async (id, stepId) => {
        const recorded = await recordedRunOf(id);
        return recorded ? recordedPromptAnswer(ctx.db, recorded.id, stepId) : null;
      },
      answering,
    });
    engine = new PipelineEngine(sctx, red, services);
    red.attach(engine);
    sctx.engine = engine;
    sctx.firer = engine;
    await engine.start();
    // Filters read the scratch home as it is; only steps act through the recording services.
    engine.setGates(ruleGates(sctx, { services: real }));
    const triggers = startTriggers(sctx, engine, { cron: { resyncMs: 0 } });
    // A new tab's rule has the id the scratch index gave it.
    const scratchId = ruleId ?? (await sctx.flows.snapshot()).index.rules.find((r) => r.tab_id === tabId)?.id;
    const rule = (await listRules(sctx, false)).find((r) => r.id === scratchId);
    if (!rule) throw new ValidationError("draft: holds no rule trigger");
    const warnings: string[] = [];
    if (!rule.enabled) warnings.push("the rule is disabled: it would not have run at all");
    let inputs = 0;
    try {
      const locations = new ReplayedLocations(sctx.db);
      // A webhook call was addressed to a deployed rule's id: a new rule has no URL yet, so none reached it.
      const items = (await replayItems(ctx, locations, acks, sctx.db, from, to, fromMs)).filter(
        (i) => ruleId !== null || !("entry" in i) || i.entry.topic !== "webhook.called",
      );
      if (ruleId === null && rule.trigger_type === "webhook") warnings.push("a new webhook rule has no recorded calls: it gets its URL when it is deployed");
      inputs = await replay(
        { scratch, engine, triggers, rule, deadline: started + BUDGET_MS, beforeAct: () => locations.flush(), busy: () => answering.size > 0 },
        items,
        toMs - 1,
      );
    } catch (err) {
      if (!(err instanceof ReplayTimeout)) throw err;
      warnings.push(`the rehearsal stopped at ${new Date(scratch.clock.now()).toISOString()}: it took longer than ${BUDGET_MS / 1000} s`);
    } finally {
      triggers.stop();
      await engine.stop();
    }
    if (red.errors.length) warnings.push(...red.errors);
    const rehearsedRows = (await runsOfRulesBetween(sctx.db, [rule.id], from, to)).filter((r) => !copied.has(r.id));
    const rehearsed = rehearsedRows.map((r) => summarizeRun(r, effects));
    const actual = actualRuns.map((r) => summarizeRun(r, null));
    return {
      rule_id: ruleId,
      rule_name: rule.name,
      draft: req.draft !== undefined,
      from,
      to,
      inputs_replayed: inputs,
      rehearsed,
      actual,
      hand_started: recorded.filter(startedByHand).map((r) => summarizeRun(r, null)),
      ...compareRuns(rehearsed, actual, ctx.settings.app.timezone),
      not_rehearsed: effects.notRehearsed,
      recorded_answers: effects.replayed,
      warnings,
      elapsed_ms: Date.now() - started,
    };
  } finally {
    await scratch.close();
  }
}

/** How a person answered the recorded run's prompt at that step; null when nobody did (it ran out) or there was none. */
async function recordedPromptAnswer(live: Knex, recordedId: number, stepId: number): Promise<RecordedPromptAnswer | null> {
  const p = await findPrompt(live, recordedId, stepId);
  if (!p?.answered_at || !p.action || !isAnswerChannel(p.channel)) return null;
  return { from_execution_id: recordedId, channel: p.channel, action: p.action, after_ms: Math.max(0, Date.parse(p.answered_at) - Date.parse(p.created_at)) };
}

/** The recorded run that saw the same input: same trigger, started within a few seconds. */
function recordedMatch(run: ExecutionRow, actual: readonly ExecutionRow[]): ExecutionRow | null {
  const at = Date.parse(run.started_at);
  let best: ExecutionRow | null = null;
  for (const a of actual) {
    if (a.trigger_type !== run.trigger_type || a.trigger_context.sensor_id !== run.trigger_context.sensor_id) continue;
    const d = Math.abs(Date.parse(a.started_at) - at);
    if (d <= 5_000 && (!best || d < Math.abs(Date.parse(best.started_at) - at))) best = a;
  }
  return best;
}

/**
 * The recorded inputs and the location state, in time order. Where people were comes from
 * the location history (every source, revisions applied); a sighting that confirms a person
 * where they are keeps their location fresh, as it did live.
 */
async function replayItems(
  ctx: CareContext,
  locations: ReplayedLocations,
  acks: readonly TimedSignalAck[],
  scratchDb: Knex,
  from: string,
  to: string,
  fromMs: number,
): Promise<ReplayItem[]> {
  const items: ReplayItem[] = acks.map((ack) => ({ at: Date.parse(ack.acknowledged_at), apply: () => applySignalAck(scratchDb, ack) }));
  for (const p of await listPersons(ctx)) {
    for (const c of await listLocationChangesBetween(ctx.db, p.person_id, from, to)) {
      items.push({ at: Math.max(Date.parse(c.timestamp), fromMs), apply: () => locations.moved(c) });
    }
  }
  for (const entry of await journalOf(ctx, from, to)) {
    const at = Date.parse(entry.at);
    if (entry.topic === "person.sighted") {
      const s = entry.payload as PersonSighting;
      items.push({ at, apply: () => locations.seen(s.person_id, s.room_name, entry.at) });
    }
    items.push({ at, entry });
  }
  // Stable: state first at equal times (it was written before the input that followed it was published).
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => a.item.at - b.item.at || a.i - b.i)
    .map((x) => x.item);
}
