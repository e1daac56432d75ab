/**
 * The context-filter gate: contexts of one type are OR-ed, different types AND-ed, and
 * `negate` inverts one context. Each context is judged by its filter type's handler from
 * the generated registry; a handler reports whether its own condition holds and this gate
 * applies `negate` (the handler sees `negate` only to word its reason).
 */
import { checkConfig } from "../../../../../nodes/_kit/config";
import type { FilterHandler, FilterResult, HandlerContext, TriggerContext } from "../../../../../nodes/_kit/handler-types";
import { unavailableReason } from "../../../../../nodes/_kit/registry-types";
import type { FilterSpec } from "../../../../../nodes/_kit/types";
import type { CareServices } from "../../../../../nodes/_kit/care-services";
import { registry } from "../../../../../nodes/registry.generated";
import type { CareContext } from "../../context";
import type { ContextView } from "../../rules/rule-model";
import type { GateResult } from "../engine/types";
import type { GateRule } from "./gate-rule";

/* eslint-disable @typescript-eslint/no-explicit-any -- filter handlers take every config type */
export interface FilterEntry {
  spec?: FilterSpec;
  handler?: FilterHandler<any>;
}

/** Where the gate finds a filter type's handler; tests pass fakes. */
export type FilterLookup = (contextType: string) => FilterEntry | undefined;

export const registryFilterLookup: FilterLookup = (type) => registry.filters.find((e) => e.spec.type === type);

/** A filter that has not answered within the per-step timeout holds the rule. */
export const FILTER_TIMEOUT_MS = 60_000;

type Verdict = { pass: true } | { pass: false; reason: string };

const label = (c: ContextView): string => `context ${c.context_type}${c.negate ? " (negated)" : ""}`;

/** What filter handlers are given, and where they come from. */
export interface FilterSetup {
  /** The app's care services (a filter reads the home through them). */
  services: CareServices;
  /** Where filter handlers come from (default: the generated registry). */
  lookup?: FilterLookup;
}

async function runHandler(
  ctx: CareContext,
  services: CareServices,
  handler: FilterHandler<any>,
  c: ContextView,
  ruleId: number,
  trigger: TriggerContext,
  config: unknown,
): Promise<FilterResult> {
  const abort = new AbortController();
  let cancelTimer = (): void => undefined;
  const timeout = new Promise<never>((_, reject) => {
    cancelTimer = ctx.clock.at(ctx.clock.now() + FILTER_TIMEOUT_MS, () => {
      abort.abort();
      reject(new Error(`no answer within ${FILTER_TIMEOUT_MS / 1000} s`));
    });
  });
  const hctx: HandlerContext = {
    clock: ctx.clock,
    log: ctx.log.child({ rule_id: ruleId, context_id: c.id, context_type: c.context_type }),
    services,
    signal: abort.signal,
  };
  try {
    return await Promise.race([handler(hctx, { trigger, rule_id: ruleId, negate: c.negate }, config), timeout]);
  } finally {
    cancelTimer();
  }
}

/** One context's verdict, with `negate` applied. Anything that keeps it from judging holds. */
async function judge(ctx: CareContext, c: ContextView, ruleId: number, trigger: TriggerContext, setup: FilterSetup): Promise<Verdict> {
  const entry = (setup.lookup ?? registryFilterLookup)(c.context_type);
  if (!entry) return { pass: false, reason: `${label(c)}: unknown context type '${c.context_type}'` };
  if (!entry.handler)
    return { pass: false, reason: `${label(c)}: ${entry.spec ? unavailableReason(entry.spec) : `filter type '${c.context_type}' has no handler`}` };
  let config: unknown = c.config;
  if (entry.spec) {
    const check = checkConfig(entry.spec, c.config);
    if (!check.ok) return { pass: false, reason: `${label(c)}: config is invalid (${check.problems.map((p) => p.message).join("; ")})` };
    config = check.config;
  }
  let result: FilterResult;
  try {
    result = await runHandler(ctx, setup.services, entry.handler, c, ruleId, trigger, config);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    ctx.log.warn({ err, rule_id: ruleId, context_id: c.id, context_type: c.context_type }, "context filter failed; the rule is held");
    return { pass: false, reason: `${label(c)} failed: ${message}` };
  }
  const pass = c.negate ? !result.pass : result.pass === true;
  if (pass) return { pass: true };
  if (!result.reason) return { pass: false, reason: `${label(c)}: ${c.negate ? "matched" : "did not match"}` };
  return { pass: false, reason: c.negate ? `${result.reason} (negated context)` : result.reason };
}

/** Contexts grouped by type, in the order each type first appears. */
function groupByType(contexts: readonly ContextView[]): ContextView[][] {
  const groups = new Map<string, ContextView[]>();
  for (const c of contexts) {
    const g = groups.get(c.context_type);
    if (g) g.push(c);
    else groups.set(c.context_type, [c]);
  }
  return [...groups.values()];
}

/** Pass when every context type has at least one passing context; else the first type that holds, with why. */
export async function filtersGate(ctx: CareContext, rule: Pick<GateRule, "id" | "contexts">, trigger: TriggerContext, setup: FilterSetup): Promise<GateResult> {
  for (const group of groupByType(rule.contexts)) {
    const reasons: string[] = [];
    let passed = false;
    for (const c of group) {
      const v = await judge(ctx, c, rule.id, trigger, setup);
      if (v.pass) {
        passed = true;
        break;
      }
      reasons.push(v.reason);
    }
    if (!passed)
      return {
        pass: false,
        reason: reasons.length > 1 ? `none of ${reasons.length} ${group[0].context_type} contexts passed: ${reasons.join("; ")}` : reasons[0],
      };
  }
  return { pass: true };
}
