/**
 * The check every deploy passes, from the editor or REST: each care node's config is
 * valid for its type (after migrating older versions), each rule tab passes the one rule
 * validator (`rule-tab-checks.ts`, the same that REST `validate` runs), and a tab that is
 * broken but not changed by this deploy does not block it.
 */
import { checkConfig, migrateConfig, MigrationError } from "../../../../nodes/_kit/config";
import { triggerConfigSchema } from "../../../../nodes/triggers/rule/rule.node";
import { describeIssue } from "../../../platform/core/validation";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { isTriggerNode, specOfNode } from "./care-types";
import { isDeviceNodeType } from "../../../../nodes/_kit/device-types";
import { checkDevicesTab, DEVICES_TAB_ID } from "../../../household/devices/devices-tab";
import { nodeConfig } from "./rule-model";
import type { Settings } from "../../../../settings";
import { checkRuleTab, describeProblem, ruleTabIds, type HouseholdNames, type TabProblem } from "./rule-tab-checks";

export interface FlowProblem {
  node_id: string;
  where: string;
  message: string;
}

/** Care node types of rules; the Devices tab's node types are checked by household/devices/devices-tab.ts. */
const isCareType = (type: string) => type.startsWith("care-") && !isDeviceNodeType(type);

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
    if (n === 0)
      problems.push({ node_id: tabId, where: `rule '${label}'`, message: "has care nodes but no rule trigger; add one, or delete the tab to delete the rule" });
    if (n > 1) problems.push({ node_id: tabId, where: `rule '${label}'`, message: `has ${n} rule triggers; a rule has exactly one` });
  }
  return problems;
}

export interface DeployReport {
  /** Problems that stop the deploy: errors in tabs it changes, broken care nodes elsewhere. */
  refused: TabProblem[];
  /** Shown, not blocking: warnings, and errors of rule tabs this deploy leaves as they were. */
  warnings: TabProblem[];
}

/** What a tab is, for telling whether a deploy changes it. */
function tabSignatures(flows: readonly FlowNode[]): Map<string, string> {
  const parts = new Map<string, string[]>();
  for (const n of flows) {
    const key = n.type === "tab" ? n.id : n.z;
    if (typeof key !== "string") continue;
    const list = parts.get(key) ?? [];
    list.push(JSON.stringify(n));
    parts.set(key, list);
  }
  return new Map([...parts].map(([k, v]) => [k, v.sort().join("\n")]));
}

export function checkDeploy(flows: readonly FlowNode[], previous: readonly FlowNode[], household: HouseholdNames, settings: Settings): DeployReport {
  const ruleTabs = ruleTabIds(flows);
  const report: DeployReport = { refused: [], warnings: [] };
  for (const p of validateCareNodes(flows.filter((n) => !(typeof n.z === "string" && ruleTabs.has(n.z))))) {
    report.refused.push({ tab_id: p.node_id, node_id: p.node_id, where: p.where, field: "config", message: p.message, severity: "error" });
  }
  for (const p of checkDevicesTab(flows)) {
    report.refused.push({ tab_id: DEVICES_TAB_ID, node_id: p.node_id, where: "the Devices tab", field: "flow", message: p.message, severity: "error" });
  }
  const before = tabSignatures(previous);
  const now = tabSignatures(flows);
  for (const tabId of ruleTabs) {
    const changed = before.get(tabId) !== now.get(tabId);
    for (const p of checkRuleTab(flows, tabId, household, settings)) {
      if (p.severity === "error" && changed) report.refused.push(p);
      else report.warnings.push(p.severity === "error" ? { ...p, message: `${p.message} (the rule was not changed by this deploy and is left as it was)` } : p);
    }
  }
  return report;
}

export class DeployRejected extends Error {
  constructor(readonly problems: readonly TabProblem[]) {
    // One problem per line: the editor lists them, REST joins them with "; ".
    super(`Deploy refused: ${problems.map(describeProblem).join("\n")}`);
  }
}

/** The refusal as one REST `detail`. */
export const refusalDetail = (problems: readonly TabProblem[]): string => problems.map(describeProblem).join("; ");
