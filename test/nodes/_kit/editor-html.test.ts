/** The generated editor file: every care type is registered, and every script compiles. */
import assert from "node:assert/strict";
import vm from "node:vm";
import { renderEditorHtml } from "../../../nodes/_kit/node-red/editor-html";
import { sourceNodesDir } from "../../../nodes/_kit/generate-registry";
import { allSpecs } from "../../../nodes/_kit/registry-types";
import { nodeRedType, TRIGGER_NODE_TYPE } from "../../../nodes/_kit/types";
import { registry } from "../../../nodes/registry.generated";

describe("generated editor HTML", () => {
  const html = renderEditorHtml(sourceNodesDir(), registry);
  const scripts = [...html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map((m) => m[1]);

  it("has JavaScript that compiles, block by block", () => {
    assert.ok(scripts.length > allSpecs(registry).length);
    scripts.forEach((code, i) => assert.doesNotThrow(() => new vm.Script(code), `script block ${i}`));
  });

  it("registers the trigger and every care type with a form template and help", () => {
    const registered: Array<{ type: string; def: { outputs: number; defaults: Record<string, { value: unknown }> } }> = [];
    const context = {
      window: {} as Record<string, unknown>,
      RED: { nodes: { registerType: (type: string, def: { outputs: number; defaults: Record<string, { value: unknown }> }) => registered.push({ type, def }) } },
    };
    vm.createContext(context);
    scripts.forEach((code) => vm.runInContext(code, context));
    const types = registered.map((r) => r.type);
    assert.ok(types.includes(TRIGGER_NODE_TYPE));
    for (const spec of allSpecs(registry)) {
      const t = nodeRedType(spec);
      const r = registered.find((x) => x.type === t);
      assert.ok(r, `${t} is registered`);
      assert.equal(r.def.outputs, spec.kind === "step" ? spec.outputPorts.length : spec.kind === "filter" ? 1 : 0, `${t} outputs`);
      assert.ok(html.includes(`data-template-name="${t}"`), `${t} has a form`);
      assert.ok(html.includes(`data-help-name="${t}"`), `${t} has help`);
    }
  });
});

describe("editor plugin scripts", () => {
  it("compile", async () => {
    const { AUTOCOMPLETE_EDITOR_SCRIPT } = await import("../../../editor-plugins/template-autocomplete/editor");
    const { RUNS_SIDEBAR_SCRIPT } = await import("../../../editor-plugins/runs-sidebar/editor");
    const { FORM_CHECKS_SCRIPT } = await import("../../../editor-plugins/form-checks/editor");
    for (const code of [AUTOCOMPLETE_EDITOR_SCRIPT, RUNS_SIDEBAR_SCRIPT, FORM_CHECKS_SCRIPT]) assert.doesNotThrow(() => new vm.Script(code));
  });
});
