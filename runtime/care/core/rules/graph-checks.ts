/**
 * Edge rules: a port the source step declares, a target step of the same rule, one target
 * per source port (identical edges collapse), and no cycles.
 */
import { ValidationError } from "../../../platform/core/errors";
import type { EdgeView } from "./rule-model";

export interface StepPorts {
  id: number;
  label: string;
  ports: readonly string[];
}

export function checkEdges(ruleId: number, steps: readonly StepPorts[], edges: readonly EdgeView[]): EdgeView[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const unique = new Map<string, EdgeView>();
  edges.forEach((e, i) => {
    const where = `edges.${i}`;
    const source = byId.get(e.source_step_id);
    if (!source) throw new ValidationError(`${where}.source_step_id: step ${e.source_step_id} is not a step of rule ${ruleId}`);
    if (!byId.has(e.target_step_id)) throw new ValidationError(`${where}.target_step_id: step ${e.target_step_id} is not a step of rule ${ruleId}`);
    if (!source.ports.includes(e.source_port)) {
      throw new ValidationError(`${where}.source_port: step '${source.label}' has no port '${e.source_port}' (it has ${source.ports.join(", ")})`);
    }
    if (e.target_port !== "main") throw new ValidationError(`${where}.target_port: steps have one input, 'main'`);
    if (e.source_step_id === e.target_step_id) throw new ValidationError(`${where}: a step cannot feed itself`);
    const key = `${e.source_step_id}:${e.source_port}`;
    const seen = unique.get(key);
    if (seen && seen.target_step_id !== e.target_step_id) {
      throw new ValidationError(
        `${where}: port '${e.source_port}' of step '${source.label}' already leads to step ${seen.target_step_id}; a port has one outgoing edge`,
      );
    }
    unique.set(key, e);
  });
  const result = [...unique.values()];
  const cycle = findCycle(
    steps.map((s) => s.id),
    result,
  );
  if (cycle) {
    const names = cycle.map((id) => `'${byId.get(id)?.label ?? id}'`).join(" → ");
    throw new ValidationError(`edges: they form a cycle (${names})`);
  }
  return result;
}

/** The steps of a cycle, first repeated at the end, or null. */
export function findCycle(ids: readonly number[], edges: readonly EdgeView[]): number[] | null {
  const next = new Map<number, number[]>(ids.map((id) => [id, []]));
  for (const e of edges) next.get(e.source_step_id)?.push(e.target_step_id);
  const state = new Map<number, 1 | 2>();
  const stack: number[] = [];
  const visit = (id: number): number[] | null => {
    state.set(id, 1);
    stack.push(id);
    for (const t of next.get(id) ?? []) {
      if (state.get(t) === 1) return [...stack.slice(stack.indexOf(t)), t];
      if (!state.has(t)) {
        const found = visit(t);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 2);
    return null;
  };
  for (const id of ids) {
    if (!state.has(id)) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return null;
}
