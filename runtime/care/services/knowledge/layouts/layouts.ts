/**
 * The layouts in force: the shipped `default-layouts.yaml`, then settings `knowledge.layouts`
 * (an entry with a shipped id replaces it, a new id adds one). Checked once per settings
 * object; `checkLayouts` runs at start so a bad layout stops the service with a message that
 * names the layout, the field and the value.
 */
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import type { Settings } from "../../../../../settings";
import { describeLayoutProblems, layoutSchema, type AppliesTo, type Layout } from "./layout-schema";

export type { Layout };

function defaultLayoutsFile(): string {
  const name = "runtime/care/services/knowledge/layouts/default-layouts.yaml";
  // From dist/runtime/care/services/knowledge/layouts (built) or runtime/care/services/knowledge/layouts (ts-node).
  const candidates = [path.resolve(__dirname, "../../../../../..", name), path.resolve(__dirname, "../../../../..", name)];
  const found = candidates.find((f) => fs.existsSync(f));
  if (!found) throw new Error(`knowledge layouts: ${name} is missing from the installation`);
  return found;
}

let shipped: unknown[] | undefined;

function shippedLayouts(): unknown[] {
  if (!shipped) {
    const doc = YAML.parse(fs.readFileSync(defaultLayoutsFile(), "utf8")) as { layouts?: unknown };
    if (!Array.isArray(doc?.layouts)) throw new Error("knowledge layouts: default-layouts.yaml has no 'layouts' list");
    shipped = doc.layouts;
  }
  return shipped;
}

const idOf = (raw: unknown, i: number): string =>
  raw && typeof raw === "object" && typeof (raw as { id?: unknown }).id === "string" ? (raw as { id: string }).id : `#${i + 1}`;

/** Validates raw layouts (shipped then overrides); throws naming the first bad layout's problems. */
export function buildLayouts(defaults: readonly unknown[], overrides: readonly unknown[]): Map<string, Layout> {
  const byId = new Map<string, { raw: unknown; from: string; i: number }>();
  defaults.forEach((raw, i) => byId.set(idOf(raw, i), { raw, from: "default-layouts.yaml", i }));
  overrides.forEach((raw, i) => byId.set(idOf(raw, i), { raw, from: "knowledge.layouts", i }));
  const out = new Map<string, Layout>();
  for (const [id, { raw, from }] of byId) {
    const parsed = layoutSchema.safeParse(raw, { reportInput: true });
    if (!parsed.success) throw new Error(`knowledge layout '${id}' (${from}): ${describeLayoutProblems(parsed.error)}`);
    out.set(parsed.data.id, parsed.data);
  }
  return out;
}

const cache = new WeakMap<object, Map<string, Layout>>();

export function layoutsOf(settings: Settings): Map<string, Layout> {
  let layouts = cache.get(settings.knowledge);
  if (!layouts) {
    layouts = buildLayouts(shippedLayouts(), settings.knowledge.layouts);
    cache.set(settings.knowledge, layouts);
  }
  return layouts;
}

/** Throws (at start) when a layout is invalid. */
export const checkLayouts = (settings: Settings): void => void layoutsOf(settings);

export const findLayout = (settings: Settings, id: string): Layout | undefined => layoutsOf(settings).get(id);

export const listLayouts = (settings: Settings, appliesTo?: AppliesTo): Layout[] =>
  [...layoutsOf(settings).values()].filter((l) => !appliesTo || l.applies_to === appliesTo);
