/**
 * The check every deploy passes, from the editor or REST: each care node's config is
 * valid for its type (after migrating older versions), and each rule tab has one trigger.
 */
import { checkConfig, migrateConfig, MigrationError } from "../../nodes/_kit/config";
import { triggerConfigSchema } from "../../nodes/trigger/trigger.spec";
import { describeIssue } from "../core/validation";
import type { FlowNode } from "../nodered/flow-store";
import { isTriggerNode, specOfNode } from "./care-types";
import { nodeConfig } from "./rule-model";

export interface FlowProblem {
  node_id: string;
  where: string;
  message: string;
}

const isCareType = (type: string) => type.startsWith("care-");

function describeNode(node: FlowNode, tabs: Map<string, FlowNode>): string {
  const tab = node.z ? tabs.get(node.z) : undefined;
  const rule = tab ? `rule '${String(tab.label ?? tab.id)}'` : "a flow";
  return `${rule}, ${isTriggerNode(node.type) ? "trigger" : `node '${String(node.name || node.type)}'`}`;
}

export function validateCareNodes(flows: readonly FlowNode[]): FlowProblem[] {
  const tabs = new Map(flows.filter((n) => n.type === "tab").map((t) => [t.id, t]));
  const problems: FlowProblem[] = [];
  const triggersPerTab = new Map<string, number>();
  const careTabs = new Set<string>();
  for (const node of flows) {
    if (!isCareType(node.type)) continue;
    if (node.z) careTabs.add(node.z);
    const where = describeNode(node, tabs);
    if (isTriggerNode(node.type)) {
      triggersPerTab.set(node.z ?? "", (triggersPerTab.get(node.z ?? "") ?? 0) + 1);
      const parsed = triggerConfigSchema.safeParse(nodeConfig(node));
      if (!parsed.success) problems.push(...parsed.error.issues.map((i) => ({ node_id: node.id, where, message: describeIssue(i) })));
      continue;
    }
    const spec = specOfNode(node.type);
    if (!spec) {
      problems.push({ node_id: node.id, where, message: `unknown node type '${node.type}'` });
      continue;
    }
    try {
      const version = typeof node.config_version === "number" ? node.config_version : spec.version;
      const check = checkConfig(spec, migrateConfig(spec, nodeConfig(node), version));
      if (!check.ok) problems.push(...check.problems.map((p) => ({ node_id: node.id, where, message: p.message })));
    } catch (err) {
      if (!(err instanceof MigrationError)) throw err;
      problems.push({ node_id: node.id, where, message: err.message });
    }
  }
  for (const tabId of careTabs) {
    const n = triggersPerTab.get(tabId) ?? 0;
    const label = String(tabs.get(tabId)?.label ?? tabId);
    if (n === 0) problems.push({ node_id: tabId, where: `rule '${label}'`, message: "has care nodes but no rule trigger; add one, or delete the tab to delete the rule" });
    if (n > 1) problems.push({ node_id: tabId, where: `rule '${label}'`, message: `has ${n} rule triggers; a rule has exactly one` });
  }
  return problems;
}

export class DeployRejected extends Error {
  constructor(readonly problems: FlowProblem[]) {
    super(`Deploy refused: ${problems.map((p) => `${p.where}: ${p.message}`).join("; ")}`);
  }
}
