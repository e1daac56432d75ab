/**
 * The editor side of every care node type, generated from its spec: `registerType` with
 * ports, defaults and validation, the edit form (built from the JSON Schema by the shared
 * browser script `browser/form.ts`, embedded compiled), and help.
 */
import fs from "node:fs";
import path from "node:path";
import { configJsonSchema, defaultConfig } from "../../nodes/_kit/config";
import { allSpecs, isAvailable } from "../../nodes/_kit/registry-types";
import { TRIGGER_NODE_TYPE, nodeRedType, type NodeSpec } from "../../nodes/_kit/types";
import type { NodeRegistry } from "../../nodes/_kit/registry-types";
import { browserScript, inlineScript } from "../browser-scripts";
import { z } from "zod";
import { triggerConfigSchema } from "../../nodes/triggers/rule/rule.node";
import { deviceNodeRedType, type DeviceSpec } from "../../nodes/_kit/device-types";

const PALETTE_CATEGORY = { step: "care steps", filter: "care filters", channel: "care channels" } as const;

/** The palette's sections, care first; generic Node-RED nodes stay below for tabs that are not rules. */
export const PALETTE_ORDER = [
  "care steps",
  "care filters",
  "care channels",
  "care devices",
  "subflows",
  "common",
  "function",
  "network",
  "sequence",
  "parser",
  "storage",
];

/**
 * Help goes into a `<script type="text/markdown">` element, whose text Node-RED hands to its
 * markdown renderer as is: HTML escapes would show literally (`&gt;`), so only a closing
 * script tag is broken up.
 */
const scriptText = (s: string) => s.replace(/<\/(script)/gi, "<\\/$1");
const json = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");
const domId = (type: string) => type.replace(/[^a-z0-9_-]/gi, "_");

interface EditorType {
  type: string;
  category: string;
  color: string;
  icon: string;
  paletteLabel: string;
  inputs: number;
  outputLabels: readonly string[];
  schema: unknown;
  defaults: Record<string, unknown>;
  version: number;
  help: string;
  extraDefaults?: Record<string, unknown>;
  /** A button on the node on the canvas: browser code run with the node as `this`. */
  button?: { enabled: string; onclick: string };
}

function registration(t: EditorType): string {
  const schemaVar = `careflowSchema_${t.type.replace(/[^A-Za-z0-9_]/g, "_")}`;
  return `<script type="text/javascript">
(function () {
  var ${schemaVar} = ${json(t.schema)};
  RED.nodes.registerType(${json(t.type)}, {
    category: ${json(t.category)},
    color: ${json(t.color)},
    icon: ${json(t.icon)},
    paletteLabel: ${json(t.paletteLabel)},
    inputs: ${t.inputs},
    outputs: ${t.outputLabels.length},
    outputLabels: ${json(t.outputLabels)},
    defaults: {
      name: { value: "" },
      config: { value: ${json(t.defaults)}, validate: function (v) { return window.careflowForm.valid(v, ${schemaVar}, this); } },
      config_version: { value: ${t.version} }${
        t.extraDefaults
          ? "," +
            Object.entries(t.extraDefaults)
              .map(([k, v]) => `\n      ${k}: { value: ${json(v)} }`)
              .join(",")
          : ""
      }
    },
    label: function () { return this.name || ${json(t.paletteLabel)}; },${
      t.button
        ? `
    button: { enabled: function () { ${t.button.enabled} }, onclick: function () { ${t.button.onclick} } },`
        : ""
    }
    oneditprepare: function () { window.careflowForm.prepare(this, ${schemaVar}, ${json(t.type)}); },
    oneditsave: function () { if (window.careflowForm.save(this, ${schemaVar}, ${json(t.type)})) this.config_version = ${t.version}; }
  });
})();
</script>
<script type="text/html" data-template-name=${json(t.type)}>
  <div class="form-row"><label for="node-input-name"><i class="fa fa-tag"></i> Name</label><input type="text" id="node-input-name"></div>${
    t.extraDefaults && "negate" in t.extraDefaults
      ? `\n  <div class="form-row"><label for="node-input-negate">negate</label><input type="checkbox" id="node-input-negate" style="width:auto"></div>`
      : ""
  }
  <div id="careflow-form-${domId(t.type)}"></div>
</script>
<script type="text/markdown" data-help-name=${json(t.type)}>
${scriptText(t.help)}
</script>`;
}

const FOLDER = { step: "steps", filter: "filters", channel: "channels" } as const;

/** The docs the app serves at `/docs/<page>` (see runtime/ops/docs-pages.ts). */
export const DOCS_ROOT = "/docs";

/** Whether any field of a schema (nested too) is a template or an expression field. */
function hasMarker(schema: unknown, marker: "template" | "expression"): boolean {
  if (!schema || typeof schema !== "object") return false;
  if ((schema as Record<string, unknown>)[marker] === true) return true;
  return Object.values(schema as Record<string, unknown>).some((v) => hasMarker(v, marker));
}

/** Links from a node's help to the pages the app serves: its reference page and the languages its fields use. */
function docLinks(spec: NodeSpec): string {
  const schema = configJsonSchema(spec);
  const links = [`[${spec.displayName} reference](${DOCS_ROOT}/nodes/${FOLDER[spec.kind]}/${spec.type})`];
  if (hasMarker(schema, "expression") || spec.type === "condition") links.push(`[Conditions](${DOCS_ROOT}/conditions)`);
  if (hasMarker(schema, "template")) links.push(`[Templates](${DOCS_ROOT}/conditions#templates)`);
  if (spec.kind === "filter") links.push(`[Filters](${DOCS_ROOT}/filters)`);
  if (spec.kind === "channel" || spec.type === "notification") links.push(`[Notifications](${DOCS_ROOT}/notifications)`);
  if (spec.type === "interactive_prompt") links.push(`[Questions to the senior](${DOCS_ROOT}/interactive)`);
  if (spec.type === "llm_call") links.push(`[Language models](${DOCS_ROOT}/llm)`);
  return `**Docs:** ${links.join(" · ")}`;
}

function helpText(nodesDir: string, spec: NodeSpec, available: boolean): string {
  const file = path.join(nodesDir, FOLDER[spec.kind], spec.type, `${spec.type}.help.md`);
  const prose = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : spec.description;
  const notes = [
    !available ? `> **Not available yet:** this node needs ${spec.pending ?? "a handler"}. A rule using it cannot be deployed.` : "",
    spec.deprecated ? `> Deprecated: use \`${spec.deprecated.replacedBy}\`.` : "",
  ].filter(Boolean);
  return [...notes, prose, docLinks(spec)].join("\n\n");
}

/** What the palette calls a node: its display name, told apart from a step of the same name, marked when it cannot run. */
export function paletteLabelOf(registry: NodeRegistry, spec: NodeSpec): string {
  const clash = spec.kind !== "step" && allSpecs(registry).some((o) => o.kind === "step" && o.displayName === spec.displayName);
  // Node-RED's palette splits a label at hyphens and shows them spaced out ("E - ink"): a non-breaking hyphen stays.
  const name = (clash ? `${spec.displayName} ${spec.kind}` : spec.displayName).replace(/-/g, "\u2011");
  return isAvailable(registry, spec) ? name : `${name} (not yet)`;
}

function editorType(nodesDir: string, registry: NodeRegistry, spec: NodeSpec): EditorType {
  return {
    type: nodeRedType(spec),
    category: PALETTE_CATEGORY[spec.kind],
    color: spec.palette.color,
    icon: spec.palette.icon,
    paletteLabel: paletteLabelOf(registry, spec),
    inputs: 1,
    outputLabels: spec.kind === "step" ? spec.outputPorts : spec.kind === "filter" ? ["pass"] : [],
    schema: configJsonSchema(spec),
    defaults: defaultConfig(spec),
    version: spec.version,
    help: helpText(nodesDir, spec, isAvailable(registry, spec)),
    extraDefaults: spec.kind === "filter" ? { negate: false } : undefined,
  };
}

/** The rule trigger's folder under `nodes/`: its spec and its help. */
const RULE_TRIGGER_FOLDER = "triggers/rule";

function triggerType(nodesDir: string): EditorType {
  const schema = z.toJSONSchema(triggerConfigSchema, { io: "input", unrepresentable: "any" });
  delete (schema as { $schema?: string }).$schema;
  return {
    type: TRIGGER_NODE_TYPE,
    category: "care steps",
    color: "#A6BBCF",
    icon: "inject.svg",
    paletteLabel: "Rule trigger",
    inputs: 0,
    outputLabels: ["fired"],
    schema,
    defaults: triggerConfigSchema.parse({}),
    version: 1,
    // "Run now" with a sample trigger (the runs sidebar's dialog); the deployed rule runs, so not while there are changes.
    button: {
      enabled: "return !RED.nodes.dirty() && !!(RED.careflow && RED.careflow.runNow);",
      onclick: "RED.careflow.runNow(this.z);",
    },
    help: `${fs.readFileSync(path.join(nodesDir, RULE_TRIGGER_FOLDER, "rule.help.md"), "utf8").trim()}\n\n**Docs:** [Triggers and gates](${DOCS_ROOT}/triggers) · [Health](${DOCS_ROOT}/health) · [Filters](${DOCS_ROOT}/filters)`,
  };
}

/** A Devices tab node: its form from its config schema like any care node, its help from its folder. */
function deviceEditorType(nodesDir: string, spec: DeviceSpec): EditorType {
  const schema = z.toJSONSchema(spec.config, { io: "input", unrepresentable: "any" });
  delete (schema as { $schema?: string }).$schema;
  const file = path.join(nodesDir, "devices", spec.type, `${spec.type}.help.md`);
  const prose = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : spec.description;
  return {
    type: deviceNodeRedType(spec),
    category: "care devices",
    color: spec.palette.color,
    icon: spec.palette.icon,
    paletteLabel: spec.displayName,
    inputs: spec.role === "entry" ? 0 : 1,
    outputLabels: spec.outputs,
    schema,
    defaults: spec.config.parse({}),
    version: spec.version,
    help: `${prose}\n\n**Docs:** [Devices](${DOCS_ROOT}/devices)`,
  };
}

export function renderEditorHtml(nodesDir: string, registry: NodeRegistry): string {
  const notYet = allSpecs(registry)
    .filter((spec) => !isAvailable(registry, spec))
    .map((spec) => `.red-ui-palette-node[data-palette-type="${nodeRedType(spec)}"]`);
  // Types that cannot run yet look unfinished in the palette: faded, dashed, their label says "(not yet)".
  // Help: inline code wraps (Node-RED keeps it on one line, so a long example was cut off at the sidebar's edge).
  const style = `<style>${notYet.length ? `${notYet.join(",\n")} { opacity: 0.55; border-style: dashed; }\n` : ""}.red-ui-help :not(pre) > code { white-space: normal; overflow-wrap: anywhere; }</style>`;
  const parts = [
    style,
    `<script type="text/javascript">${inlineScript(browserScript("channels-field"))}</script>`,
    `<script type="text/javascript">${inlineScript(browserScript("form"))}</script>`,
    registration(triggerType(nodesDir)),
  ];
  for (const spec of allSpecs(registry)) parts.push(registration(editorType(nodesDir, registry, spec)));
  for (const { spec } of registry.devices) parts.push(registration(deviceEditorType(nodesDir, spec)));
  return parts.join("\n") + "\n";
}
