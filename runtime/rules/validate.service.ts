/** `POST /rules/{id}/validate`: the saved rule, or a proposed set of steps and edges by label. */
import { z } from "zod";
import type { AppContext } from "../context";
import { parseInput } from "../core/validation";
import { findRule } from "./rule-read";
import { contextViews, edgesOf, stepViews } from "./rule-model";
import { validateRuleDraft, type RuleDraft, type ValidationReport } from "./rule-validation";

const proposal = z
  .object({
    steps: z.array(z.object({ label: z.string(), step_type: z.string(), config_json: z.record(z.string(), z.unknown()).default({}), schema_version: z.number().int().positive().optional() }).strict()),
    edges: z.array(z.object({ source_label: z.string(), source_port: z.string().default("main"), target_label: z.string(), target_port: z.literal("main").default("main") }).strict()).default([]),
  })
  .strict();

export async function validateRule(ctx: AppContext, ruleId: number, input: unknown): Promise<ValidationReport> {
  const { flows, index } = await ctx.flows.snapshot();
  const r = findRule(flows, index, ruleId);
  const contexts = contextViews(r).map((c) => ({ context_type: c.context_type, config: c.config }));
  const hasProposal = input && typeof input === "object" && !Array.isArray(input) && Object.keys(input).length > 0;
  let draft: RuleDraft;
  if (hasProposal) {
    const p = parseInput(proposal, input);
    draft = { steps: p.steps.map((s) => ({ label: s.label, step_type: s.step_type, config: s.config_json, schema_version: s.schema_version })), edges: p.edges, contexts };
  } else {
    const steps = stepViews(r);
    const labelOf = new Map(steps.map((s) => [s.id, s.label]));
    const versionOf = new Map(r.steps.map((s) => [s.row.id, typeof s.node.config_version === "number" ? s.node.config_version : undefined]));
    draft = {
      steps: steps.map((s) => ({ label: s.label, step_type: s.step_type, config: s.config_json, schema_version: versionOf.get(s.id), step_id: s.id })),
      edges: edgesOf(r).map((e) => ({ source_label: labelOf.get(e.source_step_id)!, source_port: e.source_port, target_label: labelOf.get(e.target_step_id)! })),
      contexts,
    };
  }
  return validateRuleDraft(draft, ctx.settings);
}
