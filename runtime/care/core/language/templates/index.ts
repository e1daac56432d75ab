/** Templates: `{{ dotted.path }}` placeholders rendered from pipeline_data. See docs/conditions.md. */
export { analyzeTemplate, type TemplateAnalysis } from "./analyze";
export { compileTemplate, type CompiledTemplate } from "./compile";
export { renderTemplate } from "./render";
