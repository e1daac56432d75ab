/** Contexts (filters) of a rule: filter nodes between the rule's trigger and its first steps. */
import { z } from "zod";
import type { FilterSpec } from "../../../../nodes/_kit/types";
import type { CareContext } from "../context";
import { NotFoundError, ValidationError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import { suggest, didYouMean } from "../language/suggest";
import { filterSpecByType, filterSpecs } from "./care-types";
import { newNodeId } from "./flow-draft";
import { filterNode } from "./node-builders";
import { findRule, getRuleDetail } from "./rule-read";
import type { ContextView } from "./rule-model";
import { validatedConfig } from "./step-checks";

const contextBody = z.object({ context_type: z.string().min(1), config: z.unknown().optional(), negate: z.boolean().default(false) }).strict();

export function filterSpecFor(type: string, field = "context_type"): FilterSpec {
  const spec = filterSpecByType(type);
  if (spec) return spec;
  const hint = suggest(
    type,
    filterSpecs().map((s) => s.type),
  );
  throw new ValidationError(`${field}: unknown context type '${type}'${didYouMean(hint)}`);
}

export async function listContexts(ctx: CareContext, ruleId: number): Promise<ContextView[]> {
  return (await getRuleDetail(ctx, ruleId, false)).contexts;
}

export async function addContext(ctx: CareContext, ruleId: number, input: unknown): Promise<ContextView> {
  const body = parseInput(contextBody, input);
  const spec = filterSpecFor(body.context_type);
  const nodeId = newNodeId();
  await ctx.flows.change((draft, index) => {
    const r = findRule(draft.nodes, index, ruleId);
    const config = validatedConfig(spec, body.config, "config", `rule '${String(r.tab.label ?? r.row.id)}', filter '${spec.type}'`);
    draft.add(filterNode(spec, r.tab.id, config, body.negate, r.contexts.length, nodeId));
    draft.rewireEntries(r.tab.id);
  });
  const row = await ctx.db("rule_contexts").where({ node_id: nodeId }).first();
  const found = (await listContexts(ctx, ruleId)).find((c) => c.id === row?.id);
  if (!found) throw new NotFoundError(`Context not found in rule ${ruleId}`);
  return found;
}

export async function deleteContext(ctx: CareContext, ruleId: number, contextId: number): Promise<void> {
  await ctx.flows.change((draft, index) => {
    const r = findRule(draft.nodes, index, ruleId);
    const c = r.contexts.find((x) => x.row.id === contextId);
    if (!c) throw new NotFoundError(`Context ${contextId} not found in rule ${ruleId}`);
    draft.remove(new Set([c.node.id]));
    draft.rewireEntries(r.tab.id);
  });
}
