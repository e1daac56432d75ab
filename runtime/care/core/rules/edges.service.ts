/** `PUT /rules/{id}/edges`: replace all step-to-step edges of a rule at once, or change nothing. */
import { z } from "zod";
import type { CareContext } from "../context";
import { parseInput } from "../../../platform/core/validation";
import { stepSpecOfNode } from "./care-types";
import { checkEdges } from "./graph-checks";
import { findRule, getRuleDetail } from "./rule-read";
import { nodeWires, type EdgeView } from "./rule-model";
import { storeId } from "../../../../nodes/_kit/store-id";

const edge = z
  .object({
    source_step_id: storeId(),
    source_port: z.string().min(1).default("main"),
    target_step_id: storeId(),
    target_port: z.string().min(1).default("main"),
  })
  .strict();
// `{"edges": [...]}`, or the bare list.
const edgesBody = z.preprocess((v) => (Array.isArray(v) ? { edges: v } : v), z.object({ edges: z.array(edge) }).strict());

export async function listEdges(ctx: CareContext, ruleId: number): Promise<EdgeView[]> {
  return (await getRuleDetail(ctx, ruleId, false)).edges;
}

export async function replaceEdges(ctx: CareContext, ruleId: number, input: unknown): Promise<EdgeView[]> {
  const { edges } = parseInput(edgesBody, input);
  await ctx.flows.change((draft, index) => {
    const r = findRule(draft.nodes, index, ruleId);
    const ports = r.steps.map((s) => ({ id: s.row.id, label: String(s.node.name ?? s.row.id), ports: stepSpecOfNode(s.node.type)?.outputPorts ?? ["main"] }));
    const checked = checkEdges(ruleId, ports, edges as EdgeView[]);
    const nodeOf = new Map(r.steps.map((s) => [s.row.id, s.node.id]));
    const stepNodes = new Set(nodeOf.values());
    for (const s of r.steps) {
      const node = draft.get(s.node.id)!;
      const p = stepSpecOfNode(node.type)?.outputPorts ?? ["main"];
      // Wires to nodes that are not steps (a debug node, say) stay as they are.
      node.wires = p.map((port, i) => [
        ...checked.filter((e) => e.source_step_id === s.row.id && e.source_port === port).map((e) => nodeOf.get(e.target_step_id)!),
        ...(nodeWires(node)[i] ?? []).filter((t) => !stepNodes.has(t)),
      ]);
    }
    draft.rewireEntries(r.tab.id);
  });
  return listEdges(ctx, ruleId);
}
