/**
 * A rehearsed run's path on the canvas. A rehearsed run is not stored, so its path is built
 * here from the answer's steps and the nodes the rehearsal ran (the editor's draft or the
 * deployed tab), in the shape of a recorded run's path (run-detail.ts `RunPath`), so the runs
 * sidebar's canvas display shows both. A step is found by its id in the rule's index when that
 * node carries the same label, else by its label among the tab's nodes (a draft's new nodes
 * got ids of the rehearsal's own).
 */
import type { FlowNode } from "../../runtime/platform/nodered/flow-store";
import type { PathNode, RunPath } from "../../runtime/care/core/pipeline/runs/run-detail";
import type { StepRow } from "../../runtime/care/core/rules/rule-model";
import { filterSpecOfNode, isTriggerNode, stepSpecByType, stepSpecOfNode } from "../../runtime/care/core/rules/care-types";
import type { RunSummary } from "../../runtime/care/surfaces/rehearsal/run-compare";

const ENDED = new Set(["completed", "failed", "cancelled"]);

export function rehearsedPath(tabId: string, tabNodes: readonly FlowNode[], ruleSteps: readonly StepRow[], run: RunSummary): RunPath {
  const nodes: PathNode[] = [];
  const links: RunPath["links"] = [];
  const inTab = tabNodes.filter((n) => n.z !== undefined);
  const trigger = inTab.find((n) => isTriggerNode(n.type));
  if (trigger) {
    nodes.push({ node_id: trigger.id, state: "fired", text: `would fire (${run.trigger_type})` });
    links.push({ source: trigger.id, port: 0 });
  }
  for (const f of inTab.filter((n) => filterSpecOfNode(n.type) && !n.d)) {
    nodes.push({ node_id: f.id, state: "passed", text: "passed" });
    links.push({ source: f.id, port: 0 });
  }
  const byId = new Map(ruleSteps.map((s) => [s.id, s.node_id]));
  const seen = new Set<string>();
  let focus: string | null = trigger?.id ?? null;
  for (const s of run.steps) {
    const known = inTab.find((n) => n.id === byId.get(s.step_id) && n.name === s.label);
    const node = known ?? inTab.find((n) => stepSpecOfNode(n.type) && n.name === s.label && !seen.has(n.id));
    if (!node) continue;
    seen.add(node.id);
    const port = s.output_ports[0];
    const text = s.status === "failed" ? `failed: ${s.error ?? "error"}`.slice(0, 60) : `${s.status}${port ? ` → ${port}` : ""}`;
    nodes.push({ node_id: node.id, state: s.status as PathNode["state"], text });
    const names = stepSpecByType(s.step_type)?.outputPorts ?? ["main"];
    for (const p of s.output_ports) if (names.indexOf(p) >= 0) links.push({ source: node.id, port: names.indexOf(p) });
    focus = node.id;
  }
  // The steps it never reached: greyed out as on a recorded run's path.
  for (const n of inTab) {
    if (!stepSpecOfNode(n.type) || seen.has(n.id)) continue;
    nodes.push({ node_id: n.id, state: ENDED.has(run.status) ? "skipped" : "pending", text: ENDED.has(run.status) ? "skipped" : "pending" });
  }
  return { tab_id: tabId, nodes, links, focus };
}
