/** Which care spec a flow node is, by its Node-RED type id, from the generated registry. */
import { nodeRedType, TRIGGER_NODE_TYPE, type FilterSpec, type NodeSpec, type StepSpec } from "../../../../nodes/_kit/types";
import { allSpecs } from "../../../../nodes/_kit/registry-types";
import { registry } from "../../../../nodes/registry.generated";

const byNodeRedType = new Map<string, NodeSpec>(allSpecs(registry).map((s) => [nodeRedType(s), s]));

export const specOfNode = (type: string): NodeSpec | undefined => byNodeRedType.get(type);

export function stepSpecOfNode(type: string): StepSpec | undefined {
  const s = byNodeRedType.get(type);
  return s?.kind === "step" ? s : undefined;
}

export function filterSpecOfNode(type: string): FilterSpec | undefined {
  const s = byNodeRedType.get(type);
  return s?.kind === "filter" ? s : undefined;
}

export const stepSpecs = (): StepSpec[] => registry.steps.map((e) => e.spec);
export const filterSpecs = (): FilterSpec[] => registry.filters.map((e) => e.spec);
export const stepSpecByType = (type: string): StepSpec | undefined => registry.steps.find((e) => e.spec.type === type)?.spec;
export const filterSpecByType = (type: string): FilterSpec | undefined => registry.filters.find((e) => e.spec.type === type)?.spec;
export const isTriggerNode = (type: string): boolean => type === TRIGGER_NODE_TYPE;
