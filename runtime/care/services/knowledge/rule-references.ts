/**
 * Which rules use a card or a quiz: every step of every deployed rule whose type is
 * `info_card` with `config.card_id` = the card (or `quiz_start` with `config.quiz_id` = the
 * quiz). A disabled step or rule counts too: enabling it again would deliver a card that is
 * gone. Read from the flows, the rules' one source (care/core/rules).
 */
import type { CareContext } from "../../core/context";
import { ConflictError } from "../../../platform/core/errors";
import { allRules } from "../../core/rules/rule-read";
import { ruleView, stepViews, type RuleNodes } from "../../core/rules/rule-model";

export interface RuleUse {
  rule_id: number;
  rule_name: string;
  step_id: number;
}

export type Referenced = { kind: "card"; id: number } | { kind: "quiz"; id: number };

const STEP: Readonly<Record<Referenced["kind"], { type: string; key: string }>> = {
  card: { type: "info_card", key: "card_id" },
  quiz: { type: "quiz_start", key: "quiz_id" },
};

/** The steps among `rules` that name the card or quiz (a config id given as text counts too). */
export function stepsUsing(rules: readonly RuleNodes[], what: Referenced): RuleUse[] {
  const { type, key } = STEP[what.kind];
  const uses: RuleUse[] = [];
  for (const r of rules) {
    for (const step of stepViews(r)) {
      if (step.step_type === type && Number(step.config_json[key]) === what.id) {
        uses.push({ rule_id: r.row.id, rule_name: ruleView(r, false).name, step_id: step.id });
      }
    }
  }
  return uses;
}

export async function rulesUsing(ctx: CareContext, what: Referenced): Promise<RuleUse[]> {
  const { flows, index } = await ctx.flows.snapshot();
  return stepsUsing(allRules(flows, index), what);
}

/** 409 "Info card 4 is used by rule 7 'Morning card'; archive it instead" when a rule uses it. */
export async function assertNotUsedByRules(ctx: CareContext, what: Referenced): Promise<void> {
  const uses = await rulesUsing(ctx, what);
  if (uses.length === 0) return;
  const noun = what.kind === "card" ? "Info card" : "Quiz";
  const rules = [...new Map(uses.map((u) => [u.rule_id, `rule ${u.rule_id} '${u.rule_name}'`])).values()];
  throw new ConflictError(`${noun} ${what.id} is used by ${rules.join(", ")}; archive it instead`);
}
