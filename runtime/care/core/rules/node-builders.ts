/** The one way a rule's tab, trigger, step and filter nodes are built, for REST and imports. */
import { TRIGGER_NODE_TYPE, nodeRedType, type FilterSpec, type StepSpec } from "../../../../nodes/_kit/types";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { newNodeId } from "./flow-draft";

export const tabNode = (id: string, r: { name: string; description?: string; enabled?: boolean }): FlowNode => ({
  id,
  type: "tab",
  label: r.name,
  disabled: r.enabled === false,
  info: r.description ?? "",
  env: [],
});

export const triggerNode = (tabId: string, config: Record<string, unknown>): FlowNode => ({
  id: newNodeId(),
  type: TRIGGER_NODE_TYPE,
  z: tabId,
  name: "",
  config,
  config_version: 1,
  x: 120,
  y: 80,
  wires: [[]],
});

export interface StepPlacement {
  label: string;
  config: Record<string, unknown>;
  enabled?: boolean;
  x: number;
  y: number;
}

export const stepNode = (spec: StepSpec, tabId: string, s: StepPlacement, id = newNodeId()): FlowNode => ({
  id,
  type: nodeRedType(spec),
  z: tabId,
  name: s.label,
  config: s.config,
  config_version: spec.version,
  ...(s.enabled === false ? { d: true } : {}),
  x: s.x,
  y: s.y,
  wires: spec.outputPorts.map(() => []),
});

export const filterNode = (spec: FilterSpec, tabId: string, config: Record<string, unknown>, negate: boolean, slot: number, id = newNodeId()): FlowNode => ({
  id,
  type: nodeRedType(spec),
  z: tabId,
  name: "",
  config,
  config_version: spec.version,
  negate,
  x: 120,
  y: 160 + 60 * slot,
  wires: [[]],
});

/** Default canvas spot of the n-th step (0-based) of a rule laid out left to right. */
export const stepSlot = (n: number): { x: number; y: number } => ({ x: 320 + 200 * n, y: 80 });
