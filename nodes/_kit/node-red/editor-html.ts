/**
 * The editor side of every care node type, generated from its spec: `registerType` with
 * ports, defaults and validation, the edit form (built from the JSON Schema), and help.
 */
import fs from "node:fs";
import path from "node:path";
import { configJsonSchema, defaultConfig } from "../config";
import { allSpecs, isAvailable } from "../registry-types";
import { TRIGGER_NODE_TYPE, nodeRedType, type NodeSpec } from "../types";
import type { NodeRegistry } from "../registry-types";
import { FORM_SCRIPT } from "./form-script";
import { z } from "zod";
import { triggerConfigSchema } from "../../trigger/trigger.spec";

const PALETTE_CATEGORY = { step: "care steps", filter: "care filters", channel: "care channels" } as const;

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
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
      config_version: { value: ${t.version} }${t.extraDefaults ? "," + Object.entries(t.extraDefaults).map(([k, v]) => `\n      ${k}: { value: ${json(v)} }`).join(",") : ""}
    },
    label: function () { return this.name || ${json(t.paletteLabel)}; },
    oneditprepare: function () { window.careflowForm.prepare(this, ${schemaVar}, ${json(t.type)}); },
    oneditsave: function () { window.careflowForm.save(this, ${schemaVar}, ${json(t.type)}); this.config_version = ${t.version}; }
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
${escapeHtml(t.help)}
</script>`;
}

function helpText(nodesDir: string, spec: NodeSpec, available: boolean): string {
  const folder = { step: "steps", filter: "filters", channel: "channels" }[spec.kind];
  const file = path.join(nodesDir, folder, spec.type, `${spec.type}.help.md`);
  const prose = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : spec.description;
  const notes = [
    !available ? `> Not available yet: this node needs ${spec.pending ?? "a handler"}; a rule using it fails at this step.` : "",
    spec.deprecated ? `> Deprecated: use \`${spec.deprecated.replacedBy}\`.` : "",
  ].filter(Boolean);
  return [...notes, prose].join("\n\n");
}

function editorType(nodesDir: string, registry: NodeRegistry, spec: NodeSpec): EditorType {
  return {
    type: nodeRedType(spec),
    category: PALETTE_CATEGORY[spec.kind],
    color: spec.palette.color,
    icon: spec.palette.icon,
    paletteLabel: spec.type,
    inputs: 1,
    outputLabels: spec.kind === "step" ? spec.outputPorts : spec.kind === "filter" ? ["pass"] : [],
    schema: configJsonSchema(spec),
    defaults: defaultConfig(spec),
    version: spec.version,
    help: helpText(nodesDir, spec, isAvailable(registry, spec)),
    extraDefaults: spec.kind === "filter" ? { negate: false } : undefined,
  };
}

function triggerType(): EditorType {
  const schema = z.toJSONSchema(triggerConfigSchema, { io: "input", unrepresentable: "any" });
  delete (schema as { $schema?: string }).$schema;
  return {
    type: TRIGGER_NODE_TYPE,
    category: "care steps",
    color: "#A6BBCF",
    icon: "inject.svg",
    paletteLabel: "rule trigger",
    inputs: 0,
    outputLabels: ["fired"],
    schema,
    defaults: triggerConfigSchema.parse({}),
    version: 1,
    help: "Starts the rule. Its settings are the rule's own: how it fires (`trigger_type`), the triggering sensor, the cron schedule, cool-off, daily limit and occupancy duration. The tab's name is the rule's name; disabling the tab disables the rule.",
  };
}

export function renderEditorHtml(nodesDir: string, registry: NodeRegistry): string {
  const parts = [`<script type="text/javascript">${FORM_SCRIPT}</script>`, registration(triggerType())];
  for (const spec of allSpecs(registry)) parts.push(registration(editorType(nodesDir, registry, spec)));
  return parts.join("\n") + "\n";
}
