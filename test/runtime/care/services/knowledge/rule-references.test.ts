/** Which rules use a card or a quiz: info_card steps by config.card_id, quiz_start steps by config.quiz_id. */
import assert from "node:assert/strict";
import { stepsUsing } from "../../../../../runtime/care/services/knowledge/rule-references";
import type { RuleNodes } from "../../../../../runtime/care/core/rules/rule-model";

const rule = (id: number, name: string, steps: Array<{ id: number; type: string; config: Record<string, unknown>; disabled?: boolean }>): RuleNodes => ({
  row: { id, tab_id: `tab${id}`, webhook_secret: null, webhook_secret_created_at: null, created_at: "", updated_at: "" },
  tab: { id: `tab${id}`, type: "tab", label: name },
  trigger: undefined,
  steps: steps.map((s, i) => ({
    row: { id: s.id, rule_id: id, node_id: `n${s.id}`, order: i + 1 },
    node: { id: `n${s.id}`, type: `care-${s.type}`, z: `tab${id}`, config: s.config, ...(s.disabled ? { d: true } : {}) },
  })),
  contexts: [],
});

describe("knowledge: rules that use a card or a quiz", () => {
  const rules = [
    rule(7, "Morning card", [
      { id: 70, type: "info_card", config: { card_id: 4 } },
      { id: 71, type: "quiz_start", config: { quiz_id: 4 } },
    ]),
    rule(8, "Evening", [
      { id: 80, type: "info_card", config: { card_id: "4" }, disabled: true },
      { id: 81, type: "notification", config: { card_id: 4 } },
    ]),
  ];

  it("finds info_card steps naming the card, a disabled one too, and nothing of other types", () => {
    assert.deepEqual(stepsUsing(rules, { kind: "card", id: 4 }), [
      { rule_id: 7, rule_name: "Morning card", step_id: 70 },
      { rule_id: 8, rule_name: "Evening", step_id: 80 },
    ]);
    assert.deepEqual(stepsUsing(rules, { kind: "card", id: 5 }), []);
  });

  it("finds quiz_start steps naming the quiz", () => {
    assert.deepEqual(stepsUsing(rules, { kind: "quiz", id: 4 }), [{ rule_id: 7, rule_name: "Morning card", step_id: 71 }]);
  });
});
