/** The catalogs of node types, and the data keys, all derived from the generated registry. */
import { configJsonSchema, defaultConfig } from "../../../../../nodes/_kit/config";
import { isAvailable, unavailableReason } from "../../../../../nodes/_kit/registry-types";
import { nodeRedType, type NodeSpec, type StepSpec } from "../../../../../nodes/_kit/types";
import { registry } from "../../../../../nodes/registry.generated";
import { BASE_DATA_KEYS, type DataKey } from "../data-keys";

interface TypeEntry {
  type_name: string;
  node_red_type: string;
  display_name: string;
  description: string;
  config_schema: unknown;
  default_config: Record<string, unknown>;
  schema_version: number;
  available: boolean;
  unavailable_reason: string | null;
  deprecated: boolean;
  replaced_by: string | null;
}

function entry(spec: NodeSpec): TypeEntry {
  const available = isAvailable(registry, spec);
  return {
    type_name: spec.type,
    node_red_type: nodeRedType(spec),
    display_name: spec.displayName,
    description: spec.description,
    config_schema: configJsonSchema(spec),
    default_config: defaultConfig(spec),
    schema_version: spec.version,
    available,
    unavailable_reason: available ? null : unavailableReason(spec),
    deprecated: spec.deprecated !== undefined,
    replaced_by: spec.deprecated?.replacedBy ?? null,
  };
}

const outputSchema = (spec: StepSpec) => ({
  type: "object",
  properties: Object.fromEntries(spec.outputs.map((o) => [o.key, { type: o.type, description: o.description }])),
});

export const stepTypes = () =>
  registry.steps.map(({ spec }) => ({ ...entry(spec), category: spec.category, output_ports: spec.outputPorts, output_schema: outputSchema(spec) }));
export const filterTypes = () => registry.filters.map(({ spec }) => entry(spec));
export const channelTypes = () => registry.channels.map(({ spec }) => entry(spec));

/** Every key a template may name: the base keys, then each step type's outputs. */
export function dataKeys(): DataKey[] {
  const seen = new Set<string>();
  const out: DataKey[] = [];
  const add = (k: DataKey) => {
    if (!seen.has(k.key)) {
      seen.add(k.key);
      out.push(k);
    }
  };
  BASE_DATA_KEYS.forEach(add);
  for (const { spec } of registry.steps)
    for (const o of spec.outputs) add({ key: o.key, type: o.type, description: o.description, source: `step:${spec.type}` });
  return out;
}

/** First path segments that some trigger, system key or step output provides. */
export const knownRoots = (): Set<string> => new Set(dataKeys().map((k) => k.key.split(".")[0]));
