/**
 * Keeps the id index in step with the flows, inside the transaction that writes them: a
 * tab with a rule trigger is a rule; its care step and filter nodes get stable ids. New
 * nodes are appended in flow order, vanished ones dropped, and step order renumbered 1..n.
 */
import type { Knex } from "knex";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { filterSpecOfNode, isTriggerNode, stepSpecOfNode } from "./care-types";
import type { ContextRow, RuleRow, StepRow } from "./rule-model";

export async function syncRuleIndex(trx: Knex.Transaction, flows: readonly FlowNode[], now: string): Promise<void> {
  const ruleTabs = new Set(flows.filter((n) => isTriggerNode(n.type) && n.z).map((n) => n.z as string));
  const rules: RuleRow[] = await trx("rules").select("*");
  const gone = rules.filter((r) => !ruleTabs.has(r.tab_id)).map((r) => r.id);
  if (gone.length) {
    // Explicit deletes: SQLite only cascades with foreign keys on, and we do not rely on it.
    await trx("rule_dependencies").whereIn("rule_id", gone).orWhereIn("depends_on_rule_id", gone).delete();
    await trx("rule_steps").whereIn("rule_id", gone).delete();
    await trx("rule_contexts").whereIn("rule_id", gone).delete();
    await trx("rules").whereIn("id", gone).delete();
  }
  const known = new Set(rules.map((r) => r.tab_id));
  for (const tabId of ruleTabs) {
    if (!known.has(tabId)) await trx("rules").insert({ tab_id: tabId, created_at: now, updated_at: now });
  }
  const ruleIdOfTab = new Map<string, number>(((await trx("rules").select("id", "tab_id")) as RuleRow[]).map((r) => [r.tab_id, r.id]));

  const stepNodes = flows.filter((n) => n.z && ruleTabs.has(n.z) && stepSpecOfNode(n.type));
  const contextNodes = flows.filter((n) => n.z && ruleTabs.has(n.z) && filterSpecOfNode(n.type));
  await syncSteps(trx, stepNodes, ruleIdOfTab);
  await syncContexts(trx, contextNodes, ruleIdOfTab);
}

async function syncSteps(trx: Knex.Transaction, nodes: FlowNode[], ruleIdOfTab: Map<string, number>): Promise<void> {
  const rows: StepRow[] = await trx("rule_steps").select("*");
  const present = new Set(nodes.map((n) => n.id));
  const stale = rows.filter((r) => !present.has(r.node_id)).map((r) => r.id);
  if (stale.length) await trx("rule_steps").whereIn("id", stale).delete();
  const byNode = new Map(rows.filter((r) => present.has(r.node_id)).map((r) => [r.node_id, r]));
  const nextOrder = new Map<number, number>();
  for (const r of byNode.values()) nextOrder.set(r.rule_id, Math.max(nextOrder.get(r.rule_id) ?? 0, r.order));
  for (const node of nodes) {
    const ruleId = ruleIdOfTab.get(node.z as string) as number;
    const row = byNode.get(node.id);
    if (row && row.rule_id === ruleId) continue;
    const order = (nextOrder.get(ruleId) ?? 0) + 1;
    nextOrder.set(ruleId, order);
    if (row) await trx("rule_steps").where({ id: row.id }).update({ rule_id: ruleId, order });
    else await trx("rule_steps").insert({ rule_id: ruleId, node_id: node.id, order });
  }
  await renumber(trx);
}

/** Orders become 1..n per rule, keeping their relative order. */
async function renumber(trx: Knex.Transaction): Promise<void> {
  const rows: StepRow[] = await trx("rule_steps")
    .select("*")
    .orderBy([{ column: "rule_id" }, { column: "order" }, { column: "id" }]);
  let rule = -1;
  let n = 0;
  for (const r of rows) {
    n = r.rule_id === rule ? n + 1 : 1;
    rule = r.rule_id;
    if (r.order !== n) await trx("rule_steps").where({ id: r.id }).update({ order: n });
  }
}

async function syncContexts(trx: Knex.Transaction, nodes: FlowNode[], ruleIdOfTab: Map<string, number>): Promise<void> {
  const rows: ContextRow[] = await trx("rule_contexts").select("*");
  const present = new Set(nodes.map((n) => n.id));
  const stale = rows.filter((r) => !present.has(r.node_id)).map((r) => r.id);
  if (stale.length) await trx("rule_contexts").whereIn("id", stale).delete();
  const byNode = new Map(rows.map((r) => [r.node_id, r]));
  for (const node of nodes) {
    const ruleId = ruleIdOfTab.get(node.z as string) as number;
    const row = byNode.get(node.id);
    if (!row) await trx("rule_contexts").insert({ rule_id: ruleId, node_id: node.id });
    else if (row.rule_id !== ruleId) await trx("rule_contexts").where({ id: row.id }).update({ rule_id: ruleId });
  }
}
