/**
 * Field markers: a template field takes `{{key}}` placeholders, an expression field holds
 * a condition, a reference field names a sensor, room or person of the household. They are
 * zod metadata, so they appear in the JSON Schema served by `/pipeline/step-types`, and the
 * editor form (pickers), validation (unknown names refused at deploy) and docs read them.
 */
import { z } from "zod";

/**
 * `cts_camera`: a tracking camera id (`cts.cameras`, what `GET /cts/cameras` lists); offered as a
 * picker but not refused when unknown, since the tracking service may have cameras careflow's
 * settings do not list.
 */
export type HouseholdRef = "sensor" | "room" | "person" | "cts_camera";

/**
 * A string that may contain `{{path}}` placeholders. `words_preview`: the form shows under it how
 * the message reads for each receiver, with careflow's fixed words in the receiver's language.
 */
export const template = (description: string, opts: { multiline?: boolean; title?: string; words_preview?: boolean } = {}) =>
  z.string().meta({
    description,
    template: true,
    ...(opts.multiline ? { multiline: true } : {}),
    ...(opts.title ? { title: opts.title } : {}),
    ...(opts.words_preview ? { words_preview: true } : {}),
  });

/** The id (sensors, persons, tracking cameras) or name (rooms) of something in the household. */
export const householdRef = (ref: HouseholdRef, description: string) => z.string().meta({ description, ref });

/** A condition expression in the pipeline's condition language. */
/** An approved info card or quiz of the knowledge repository, by id: the form offers a picker of them. */
export type KnowledgeRef = "info_card" | "quiz";
export const knowledgeRef = (ref: KnowledgeRef, description: string) => z.number().int().positive().meta({ description, knowledge: ref });

export const expression = (description: string) => z.string().meta({ description, expression: true });

export interface JsonSchemaNode {
  type?: string | string[];
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  template?: boolean;
  expression?: boolean;
  multiline?: boolean;
  /** The notification's `channels`: left out means the alert level's default channels. */
  level_channels?: boolean;
  /** A notification's message: the form previews it for each receiver, in their language. */
  words_preview?: boolean;
  ref?: HouseholdRef;
  knowledge?: KnowledgeRef;
  [k: string]: unknown;
}

export interface MarkedValue {
  /** Dotted path of the field inside the config, with list indexes (`conditions.0.person_id`). */
  field: string;
  value: string;
  marker: "template" | "expression";
}

/** Every string in `value` that sits in a template or expression field of `schema`. */
export function markedStrings(schema: JsonSchemaNode, value: unknown, path: string[] = []): MarkedValue[] {
  const variants = schema.anyOf ?? [schema];
  const out: MarkedValue[] = [];
  for (const s of variants) {
    if (typeof value === "string" && (s.template || s.expression)) {
      out.push({ field: path.join("."), value, marker: s.expression ? "expression" : "template" });
      return out;
    }
    if (Array.isArray(value) && s.items) {
      value.forEach((item, i) => out.push(...markedStrings(s.items!, item, [...path, String(i)])));
    } else if (value && typeof value === "object" && s.properties) {
      for (const [k, sub] of Object.entries(s.properties)) {
        const v = (value as Record<string, unknown>)[k];
        if (v !== undefined) out.push(...markedStrings(sub, v, [...path, k]));
      }
    }
  }
  return out;
}

export interface RefValue {
  field: string;
  value: string;
  ref: HouseholdRef;
}

/** Every non-empty string in `value` that sits in a reference field of `schema`. */
export function refStrings(schema: JsonSchemaNode, value: unknown, path: string[] = []): RefValue[] {
  const out: RefValue[] = [];
  for (const s of schema.anyOf ?? [schema]) {
    if (typeof value === "string" && s.ref) {
      if (value.trim()) out.push({ field: path.join("."), value, ref: s.ref });
      return out;
    }
    if (Array.isArray(value) && s.items) value.forEach((item, i) => out.push(...refStrings(s.items!, item, [...path, String(i)])));
    else if (value && typeof value === "object" && s.properties) {
      for (const [k, sub] of Object.entries(s.properties)) {
        const v = (value as Record<string, unknown>)[k];
        if (v !== undefined) out.push(...refStrings(sub, v, [...path, k]));
      }
    }
  }
  return out;
}
