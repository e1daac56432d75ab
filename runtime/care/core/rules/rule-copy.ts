/**
 * Rules placed in another store (a rehearsal's scratch store): the given flows as the only
 * flows, and the rules' index rows (rule, step and filter ids, dependencies) as the live
 * store has them, so rehearsed runs name the same rule and step ids as the recorded ones. A
 * draft of a rule (the editor's unsaved tab) keeps the ids of the nodes it shares with the
 * rule; its new nodes get new ones.
 */
import type { Knex } from "knex";
import { copyRows } from "../../../platform/db/table-copy";
import { writeFlows, type FlowNode } from "../../../platform/nodered/flow-store";
import { syncRuleIndex } from "./index-sync";

export async function placeRules(live: Knex, scratch: Knex, ruleIds: readonly number[], flows: readonly FlowNode[], now: string): Promise<void> {
  const ids = [...ruleIds];
  if (ids.length) {
    await copyRows(live, scratch, "rules", (q) => q.whereIn("id", ids));
    await copyRows(live, scratch, "rule_steps", (q) => q.whereIn("rule_id", ids));
    await copyRows(live, scratch, "rule_contexts", (q) => q.whereIn("rule_id", ids));
    await copyRows(live, scratch, "rule_dependencies", (q) => q.whereIn("rule_id", ids).whereIn("depends_on_rule_id", ids));
  }
  await scratch.transaction(async (trx) => {
    await writeFlows(trx, flows);
    await syncRuleIndex(trx, flows, now);
  });
}
