/**
 * The editor's browser code, compiled: `tsconfig.browser.json` compiles the TypeScript under
 * `editor-plugins/<plugin>/browser/` and `editor-plugins/node-forms/browser/` into plain scripts in
 * `dist/` (the same layout as the sources), and the build reads them from there into the
 * generated Node-RED package. A missing file means the browser build did not run.
 */
import fs from "node:fs";
import path from "node:path";

/** `dist/`: this file is compiled to `dist/editor-plugins/`. */
const DIST = path.resolve(__dirname, "..");

/** Each browser script by name, as a path under `dist/`. */
export const BROWSER_SCRIPTS = {
  form: "editor-plugins/node-forms/browser/form.js",
  "channels-field": "editor-plugins/node-forms/browser/channels-field.js",
  "editor-page": "editor-plugins/editor-page/browser/page.js",
  "form-checks": "editor-plugins/form-checks/browser/checks.js",
  "runs-sidebar": "editor-plugins/runs-sidebar/browser/sidebar.js",
  "run-now": "editor-plugins/runs-sidebar/browser/run-now.js",
  "first-rule-tab": "editor-plugins/editor-page/browser/first-rule-tab.js",
  rehearse: "editor-plugins/rehearse/browser/rehearse.js",
  "template-autocomplete": "editor-plugins/template-autocomplete/browser/autocomplete.js",
} as const;

export type BrowserScript = keyof typeof BROWSER_SCRIPTS;

export const browserScriptFile = (name: BrowserScript): string => path.join(DIST, BROWSER_SCRIPTS[name]);

/** A compiled browser script's text. */
export function browserScript(name: BrowserScript): string {
  const file = browserScriptFile(name);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: build the browser code first (tsc -b tsconfig.browser.json, part of npm run build)`);
  return fs.readFileSync(file, "utf8");
}

/** A script's text for an inline `<script>` element: a closing script tag inside is broken up. */
export const inlineScript = (code: string): string => code.replace(/<\/(script)/gi, "<\\/$1");
