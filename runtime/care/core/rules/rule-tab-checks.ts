/**
 * The one validator of a rule, run on the rule's tab as it would be deployed: by REST
 * `validate`, by every REST change and by every deploy from the editor. It adds to the
 * step-level checks of `validateRuleDraft` (configs, conditions, templates, labels, graph)
 * what only the whole tab shows: its trigger, nodes that are not care nodes, node types that
 * cannot run yet, and sensors, rooms and persons that the household does not have.
 */
import { checkConfig } from "../../../../nodes/_kit/config";
import { configJsonSchema } from "../../../../nodes/_kit/config";
import { refStrings, type HouseholdRef, type JsonSchemaNode } from "../../../../nodes/_kit/fields";
import type { Settings } from "../../../../settings";
import { triggerConfigSchema } from "../../../../nodes/triggers/rule/rule.node";
import { z } from "zod";
import { nameKey } from "../../../platform/core/name-key";
import { describeIssue } from "../../../platform/core/validation";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { suggest, didYouMean } from "../language/suggest";
import { filterSpecOfNode, isTriggerNode, specOfNode, stepSpecOfNode } from "./care-types";
import { nodeConfig, nodeWires } from "./rule-model";
import { validateRuleDraft, type Problem, type RuleDraft } from "./rule-validation";

/** Names the household has, for reference fields: sensor ids, room names (lower case), person ids. */
export interface HouseholdNames {
  sensors: ReadonlySet<string>;
  rooms: ReadonlySet<string>;
  persons: ReadonlySet<string>;
}

export interface TabProblem {
  tab_id: string;
  /** The node the problem is on (the tab itself for rule-level problems). */
  node_id: string;
  /** Readable place: `rule 'Morning medicine', step 'check verified'`. */
  where: string;
  /** As REST `validate` names it (`config_json.expression`, `edges.0.target_label`). */
  field: string;
  message: string;
  suggestion?: string;
  position?: number;
  /** The step's label when the problem is on a step. */
  step_label?: string;
  severity: "error" | "warning";
}

/** Node-RED nodes a rule tab may hold besides care nodes: they carry no behaviour. */
const HARMLESS_TYPES = new Set(["comment", "group", "tab"]);

export const triggerSchema = (() => {
  const s = z.toJSONSchema(triggerConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchemaNode;
  delete s.$schema;
  return s;
})();

/** Tabs that hold a rule trigger: the rule tabs. */
export const ruleTabIds = (flows: readonly FlowNode[]): Set<string> =>
  new Set(flows.filter((n) => isTriggerNode(n.type) && typeof n.z === "string").map((n) => n.z as string));

/** The steps, edges and filters of one rule tab, in the shape `validateRuleDraft` reads. */
export function draftOfTab(flows: readonly FlowNode[], tabId: string): { draft: RuleDraft; stepNodes: FlowNode[] } {
  const nodes = flows.filter((n) => n.z === tabId);
  const stepNodes = nodes.filter((n) => stepSpecOfNode(n.type));
  const labelOf = new Map(stepNodes.map((n) => [n.id, typeof n.name === "string" ? n.name : ""]));
  const edges = stepNodes.flatMap((n) => {
    const ports = stepSpecOfNode(n.type)!.outputPorts;
    return nodeWires(n).flatMap((targets, i) =>
      targets
        .filter((t) => labelOf.has(t) && ports[i] !== undefined)
        .map((t) => ({ source_label: labelOf.get(n.id)!, source_port: ports[i], target_label: labelOf.get(t)! })),
    );
  });
  const draft: RuleDraft = {
    steps: stepNodes.map((n) => ({
      label: labelOf.get(n.id)!,
      step_type: stepSpecOfNode(n.type)!.type,
      config: nodeConfig(n),
      schema_version: typeof n.config_version === "number" ? n.config_version : undefined,
    })),
    edges,
    contexts: nodes
      .filter((n) => filterSpecOfNode(n.type))
      .map((n) => ({
        context_type: filterSpecOfNode(n.type)!.type,
        config: nodeConfig(n),
        schema_version: typeof n.config_version === "number" ? n.config_version : undefined,
      })),
  };
  return { draft, stepNodes };
}

const REF_NAMES: Record<HouseholdRef, string> = { sensor: "sensor", room: "room", person: "person", cts_camera: "tracking camera" };

function refProblems(
  schema: JsonSchemaNode,
  config: Record<string, unknown>,
  household: HouseholdNames,
  prefix: string,
): Array<Pick<TabProblem, "field" | "message" | "suggestion">> {
  return refStrings(schema, config).flatMap((r) => {
    // The tracking service may know cameras the settings do not list: offered, never refused.
    if (r.ref === "cts_camera") return [];
    const known = r.ref === "sensor" ? household.sensors : r.ref === "room" ? household.rooms : household.persons;
    const value = r.ref === "room" ? nameKey(r.value) : r.value;
    if (known.has(value)) return [];
    const hint = suggest(value, known);
    return [{ field: `${prefix}${r.field}`, message: `the household has no ${REF_NAMES[r.ref]} '${r.value}'`, ...(hint ? { suggestion: hint } : {}) }];
  });
}

const quote = (s: unknown): string => `'${String(s ?? "")}'`;

/** Every problem of one rule tab, errors and warnings, each naming the tab, the node and the field. */
export function checkRuleTab(flows: readonly FlowNode[], tabId: string, household: HouseholdNames, settings: Settings): TabProblem[] {
  const tab = flows.find((n) => n.id === tabId);
  const rule = `rule ${quote(tab?.label ?? tabId)}`;
  const out: TabProblem[] = [];
  const add = (
    node: FlowNode | undefined,
    what: string,
    p: Pick<TabProblem, "field" | "message"> & Partial<TabProblem>,
    severity: TabProblem["severity"] = "error",
  ) => out.push({ tab_id: tabId, node_id: node?.id ?? tabId, where: what ? `${rule}, ${what}` : rule, severity, ...p });

  const nodes = flows.filter((n) => n.z === tabId);
  const triggers = nodes.filter((n) => isTriggerNode(n.type));
  if (triggers.length !== 1) add(tab, "", { field: "trigger", message: `has ${triggers.length} rule triggers; a rule has exactly one` });
  for (const t of triggers) {
    const parsed = triggerConfigSchema.safeParse(nodeConfig(t));
    if (!parsed.success) for (const i of parsed.error.issues) add(t, "trigger", { field: i.path.join(".") || "trigger", message: describeIssue(i) });
    else for (const p of refProblems(triggerSchema, parsed.data, household, "")) add(t, "trigger", p);
  }

  for (const n of nodes) {
    const spec = specOfNode(n.type);
    const label = typeof n.name === "string" && n.name ? n.name : n.type;
    if (!spec) {
      if (!isTriggerNode(n.type) && !HARMLESS_TYPES.has(n.type)) {
        add(n, `node ${quote(label)}`, {
          field: "type",
          message: `a '${n.type}' node is not a care node; rules hold only care nodes (put Node-RED nodes on a tab without a rule trigger)`,
        });
      }
      continue;
    }
    const what = `${spec.kind === "filter" ? "filter" : spec.kind === "channel" ? "channel" : "step"} ${quote(label)}`;
    const check = checkConfig(spec, nodeConfig(n));
    const stepLabel = spec.kind === "step" ? { step_label: typeof n.name === "string" ? n.name : "" } : {};
    if (spec.pending) add(n, what, { field: "step_type", message: `${spec.type} cannot run yet: it needs ${spec.pending}`, ...stepLabel });
    if (check.ok)
      for (const p of refProblems(configJsonSchema(spec), check.config, household, spec.kind === "filter" ? "config." : "config_json."))
        add(n, what, { ...p, ...stepLabel });
  }

  const { draft, stepNodes } = draftOfTab(flows, tabId);
  const report = validateRuleDraft(draft, settings);
  const nodeOfLabel = new Map(stepNodes.map((n) => [typeof n.name === "string" ? n.name : "", n]));
  const place = (p: Problem): [FlowNode | undefined, string] => {
    if (p.step_label !== undefined) return [nodeOfLabel.get(p.step_label), `step ${quote(p.step_label || "(no label)")}`];
    const ctx = /^contexts\.(\d+)\./.exec(p.field);
    if (ctx) {
      const filter = nodes.filter((n) => filterSpecOfNode(n.type))[Number(ctx[1])];
      return [filter, `filter ${quote(filter?.name || filter?.type)}`];
    }
    return [tab, ""];
  };
  const fromReport = (p: Problem, severity: TabProblem["severity"]) => {
    const [node, what] = place(p);
    add(
      node,
      what,
      {
        field: p.field,
        message: p.message,
        ...(p.step_label !== undefined ? { step_label: p.step_label } : {}),
        ...(p.suggestion ? { suggestion: p.suggestion } : {}),
        ...(p.position !== undefined ? { position: p.position } : {}),
      },
      severity,
    );
  };
  report.errors.forEach((p) => fromReport(p, "error"));
  report.warnings.forEach((p) => fromReport(p, "warning"));
  return out;
}

/** One line a caregiver can read: place, field (as the form names it), message, suggestion. */
export function describeProblem(p: TabProblem): string {
  const field = p.field.replace(/^config_json\./, "");
  const said = p.message.startsWith(`${field}:`) ? p.message : `${field}: ${p.message}`;
  const at = p.position !== undefined ? ` (at character ${p.position + 1})` : "";
  return `${p.where}, ${said}${at}${didYouMean(p.suggestion)}`;
}
