/**
 * Config of a node: defaults, validation (one function for every gate: editor, REST,
 * MCP, import, deploy) and migration from older versions.
 */
import { z } from "zod";
import { describeIssue } from "./issues";
import type { JsonSchemaNode } from "./fields";
import type { NodeSpec } from "./types";

export interface ConfigProblem {
  field: string;
  message: string;
}

export type ConfigCheck = { ok: true; config: Record<string, unknown> } | { ok: false; problems: ConfigProblem[] };

export function checkConfig(spec: NodeSpec, raw: unknown): ConfigCheck {
  const given = raw ?? {};
  const spelled = spec.aliases && typeof given === "object" && !Array.isArray(given) ? spec.aliases(given as Record<string, unknown>) : given;
  const result = spec.config.safeParse(spelled);
  if (result.success) return { ok: true, config: result.data as Record<string, unknown> };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({
      field: issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]].join(".") : issue.path.join("."),
      message: describeIssue(issue),
    })),
  };
}

export const defaultConfig = (spec: NodeSpec): Record<string, unknown> => {
  const r = spec.config.safeParse({});
  return r.success ? (r.data as Record<string, unknown>) : {};
};

const schemaCache = new WeakMap<NodeSpec, JsonSchemaNode>();

/** The JSON Schema of a spec's config, as callers send it (defaults are optional). */
export function configJsonSchema(spec: NodeSpec): JsonSchemaNode {
  let s = schemaCache.get(spec);
  if (!s) {
    s = z.toJSONSchema(spec.config, { io: "input", unrepresentable: "any" }) as JsonSchemaNode;
    delete s.$schema;
    schemaCache.set(spec, s);
  }
  return s;
}

export class MigrationError extends Error {}

/**
 * Bring a config written at `fromVersion` up to the spec's current version by applying each
 * pure migration in turn. A config from a newer version is returned unchanged (the caller
 * warns); a missing migration step is an error.
 */
export function migrateConfig(spec: NodeSpec, config: Record<string, unknown>, fromVersion: number): Record<string, unknown> {
  let current = structuredClone(config);
  for (let v = fromVersion; v < spec.version; v++) {
    const step = spec.migrations?.[v];
    if (!step) throw new MigrationError(`${spec.kind} type '${spec.type}' has no migration from config version ${v} to ${v + 1}`);
    current = step(current);
  }
  return current;
}
