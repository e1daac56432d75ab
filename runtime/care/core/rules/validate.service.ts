/**
 * `POST /rules/{id}/validate`: the saved rule, checked by the same validator as every deploy
 * (`checkRuleTab`), or a proposed set of steps and edges by label.
 */
import { z } from "zod";
import type { CareContext } from "../context";
import { parseInput } from "../../../platform/core/validation";
import { findRule } from "./rule-read";
import { contextViews } from "./rule-model";
import { validateRuleDraft, type Problem, type ValidationReport } from "./rule-validation";
import { checkRuleTab } from "./rule-tab-checks";
import { readHouseholdNames } from "./household-names";

const proposal = z
  .object({
    steps: z.array(
      z
        .object({
          label: z.string(),
          step_type: z.string(),
          config_json: z.record(z.string(), z.unknown()).default({}),
          schema_version: z.number().int().positive().optional(),
        })
        .strict(),
    ),
    edges: z
      .array(
        z
          .object({
            source_label: z.string(),
            source_port: z.string().default("main"),
            target_label: z.string(),
            target_port: z.literal("main").default("main"),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

export async function validateRule(ctx: CareContext, ruleId: number, input: unknown): Promise<ValidationReport> {
  const { flows, index } = await ctx.flows.snapshot();
  const r = findRule(flows, index, ruleId);
  const contexts = contextViews(r).map((c) => ({ context_type: c.context_type, config: c.config }));
  const hasProposal = input && typeof input === "object" && !Array.isArray(input) && Object.keys(input).length > 0;
  if (hasProposal) {
    const p = parseInput(proposal, input);
    return validateRuleDraft(
      {
        steps: p.steps.map((s) => ({ label: s.label, step_type: s.step_type, config: s.config_json, schema_version: s.schema_version })),
        edges: p.edges,
        contexts,
      },
      ctx.settings,
    );
  }
  const stepIdOf = new Map(r.steps.map((s) => [s.node.id, s.row.id]));
  const report: ValidationReport = { valid: true, errors: [], warnings: [] };
  for (const t of checkRuleTab(flows, r.tab.id, await readHouseholdNames(ctx), ctx.settings)) {
    const stepId = stepIdOf.get(t.node_id);
    const problem: Problem = {
      field: t.field,
      message: t.message,
      ...(t.step_label !== undefined ? { step_label: t.step_label } : {}),
      ...(stepId !== undefined ? { step_id: stepId } : {}),
      ...(t.position !== undefined ? { position: t.position } : {}),
      ...(t.suggestion ? { suggestion: t.suggestion } : {}),
    };
    (t.severity === "error" ? report.errors : report.warnings).push(problem);
  }
  report.valid = report.errors.length === 0;
  return report;
}
