/** The generated editor file: every care type is registered, and every script compiles. */
import assert from "node:assert/strict";
import vm from "node:vm";
import { renderEditorHtml } from "../../../editor-plugins/node-forms/editor-html";
import { sourceNodesDir } from "../../../nodes/_build/generate-registry";
import { allSpecs } from "../../../nodes/_kit/registry-types";
import { nodeRedType, TRIGGER_NODE_TYPE } from "../../../nodes/_kit/types";
import { registry } from "../../../nodes/registry.generated";
import { BROWSER_SCRIPTS, browserScript, type BrowserScript } from "../../../editor-plugins/browser-scripts";

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
      RED: {
        nodes: { registerType: (type: string, def: { outputs: number; defaults: Record<string, { value: unknown }> }) => registered.push({ type, def }) },
      },
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
  it("compile", () => {
    for (const name of Object.keys(BROWSER_SCRIPTS) as BrowserScript[]) assert.doesNotThrow(() => new vm.Script(browserScript(name)), name);
  });

  it("are plain scripts, without a module system", () => {
    for (const name of Object.keys(BROWSER_SCRIPTS) as BrowserScript[]) {
      const code = browserScript(name);
      assert.doesNotMatch(code, /\b(require\(|exports\.|import\s|export\s)/, name);
    }
  });

  it("are in the generated package as compiled", () => {
    assert.ok(renderEditorHtml(sourceNodesDir(), registry).includes(browserScript("form")), "careflow.html embeds the form script");
  });
});
