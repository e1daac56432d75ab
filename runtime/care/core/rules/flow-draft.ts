/**
 * A mutable copy of the flows that a REST change edits before it is validated and
 * deployed as a whole. Removing a node also removes every wire that pointed at it.
 */
import { randomBytes } from "node:crypto";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { TRIGGER_NODE_TYPE } from "../../../../nodes/_kit/types";
import { filterSpecOfNode, stepSpecOfNode } from "./care-types";
import { nodeWires } from "./rule-model";

export const newNodeId = (): string => randomBytes(8).toString("hex");

export class FlowDraft {
  readonly nodes: FlowNode[];

  constructor(flows: readonly FlowNode[]) {
    this.nodes = structuredClone(flows as FlowNode[]);
  }

  get(id: string): FlowNode | undefined {
    return this.nodes.find((n) => n.id === id);
  }

  inTab(tabId: string): FlowNode[] {
    return this.nodes.filter((n) => n.z === tabId);
  }

  /** Adds a node after the last node of its tab, so a tab's nodes stay together. */
  add(node: FlowNode): FlowNode {
    let at = -1;
    this.nodes.forEach((n, i) => {
      if (n.id === node.z || n.z === node.z) at = i;
    });
    this.nodes.splice(at < 0 ? this.nodes.length : at + 1, 0, node);
    return node;
  }

  remove(ids: ReadonlySet<string>): void {
    for (let i = this.nodes.length - 1; i >= 0; i--) if (ids.has(this.nodes[i].id)) this.nodes.splice(i, 1);
    for (const n of this.nodes) {
      if (Array.isArray(n.wires)) n.wires = nodeWires(n).map((targets) => targets.filter((t) => !ids.has(t)));
    }
  }

  removeTab(tabId: string): void {
    this.remove(new Set([tabId, ...this.inTab(tabId).map((n) => n.id)]));
  }

  /**
   * The trigger feeds the filter nodes in a chain, and the last of them (or the trigger)
   * feeds every step nobody else feeds. Wires to nodes that are not care nodes stay.
   */
  rewireEntries(tabId: string): void {
    const nodes = this.inTab(tabId);
    const trigger = nodes.find((n) => n.type === TRIGGER_NODE_TYPE);
    const filters = nodes.filter((n) => filterSpecOfNode(n.type));
    const steps = nodes.filter((n) => stepSpecOfNode(n.type));
    const stepIds = new Set(steps.map((s) => s.id));
    const fed = new Set(steps.flatMap((s) => nodeWires(s).flat()).filter((t) => stepIds.has(t)));
    const entries = steps.filter((s) => !fed.has(s.id)).map((s) => s.id);
    const managed = new Set([...filters.map((f) => f.id), ...stepIds]);
    const chain = [trigger, ...filters].filter((n): n is FlowNode => n !== undefined);
    chain.forEach((node, i) => {
      const kept = nodeWires(node)[0]?.filter((t) => !managed.has(t)) ?? [];
      const next = i + 1 < chain.length ? [chain[i + 1].id] : entries;
      node.wires = [[...next, ...kept]];
    });
  }
}
