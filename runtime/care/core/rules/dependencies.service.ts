/**
 * Dependencies: a rule fires only if another rule did (require_success) or did not
 * complete within the lookback. They are rule metadata, kept in their own table.
 */
import { z } from "zod";
import type { CareContext } from "../context";
import { isoNow } from "../../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import { findRule, listDependencies } from "./rule-read";
import type { DependencyView } from "./rule-model";
import { storeId } from "../../../../nodes/_kit/store-id";

const body = z
  .object({
    depends_on_rule_id: storeId(),
    lookback_minutes: z.number().positive().max(10080).default(30),
    require_success: z.boolean().default(true),
  })
  .strict();

export async function addDependency(ctx: CareContext, ruleId: number, input: unknown): Promise<DependencyView> {
  const b = parseInput(body, input);
  const { flows, index } = await ctx.flows.snapshot();
  findRule(flows, index, ruleId);
  if (b.depends_on_rule_id === ruleId) throw new ValidationError("depends_on_rule_id: a rule cannot depend on itself");
  if (!index.rules.some((r) => r.id === b.depends_on_rule_id)) throw new ValidationError(`depends_on_rule_id: rule ${b.depends_on_rule_id} does not exist`);
  const existing = await ctx.db("rule_dependencies").where({ rule_id: ruleId, depends_on_rule_id: b.depends_on_rule_id }).first();
  if (existing) throw new ConflictError(`Rule ${ruleId} already depends on rule ${b.depends_on_rule_id} (dependency ${existing.id})`);
  const [row] = await ctx
    .db("rule_dependencies")
    .insert({ rule_id: ruleId, ...b, created_at: isoNow(ctx.clock) })
    .returning("id");
  const id = typeof row === "object" ? row.id : row;
  return (await listDependencies(ctx, ruleId)).find((d) => d.id === id)!;
}

export async function deleteDependency(ctx: CareContext, ruleId: number, depId: number): Promise<void> {
  const n = await ctx.db("rule_dependencies").where({ id: depId, rule_id: ruleId }).delete();
  if (!n) throw new NotFoundError(`Dependency ${depId} not found in rule ${ruleId}`);
}

export async function listRuleDependencies(ctx: CareContext, ruleId: number): Promise<DependencyView[]> {
  const { flows, index } = await ctx.flows.snapshot();
  findRule(flows, index, ruleId);
  return listDependencies(ctx, ruleId);
}
