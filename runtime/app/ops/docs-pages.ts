/**
 * The caregiver-facing docs (`docs/*.md`: conditions and templates, triggers, filters, …, and
 * the generated node reference pages) served at `/docs/<page>`, so the editor's help can link
 * to them. No key: they describe the product, never the household. The page renders its
 * markdown in the browser with the editor's own copy of marked and DOMPurify, and shows the
 * plain text when those are not there.
 */
import fs from "node:fs";
import path from "node:path";
import { Router } from "express";
import { DOCS_ROOT } from "../../../editor-plugins/node-forms/editor-html";

/** The pages offered, by name (`docs/<name>.md`), with their titles for the index. */
const PAGES: Record<string, string> = {
  conditions: "Conditions and templates",
  triggers: "Triggers and gates",
  filters: "Context filters",
  notifications: "Notifications and alerts",
  chat: "The family's chat",
  interactive: "Questions to the senior",
  webapp: "The web app (the senior's screen)",
  llm: "Language models",
  eink: "E-ink displays",
  tts: "Speech",
  devices: "Cameras and the terminal",
  hub: "The home hub",
  presence: "Where people are",
  mcp: "MCP: tools for agents",
  "knowledge-page": "Knowledge: the caregiver's page",
  "household-page": "Household: devices and keys",
  knowledge: "Knowledge: documents and answers",
  "knowledge-cards": "Knowledge: cards and quizzes",
  journal: "The input journal",
  health: "Health: every part's state",
};
const NODE_PAGE = /^nodes\/(steps|filters|channels)\/[a-z0-9_]+$/;

function docsDir(): string | undefined {
  // dist/runtime/ops → repo root, or runtime/ops when run from sources.
  return [path.resolve(__dirname, "../../../../docs"), path.resolve(__dirname, "../../../docs")].find((d) => fs.existsSync(d));
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Links between doc pages (`filters.md`, `../conditions.md#templates`) point at the served pages. */
export function rewriteDocLinks(markdown: string, page: string): string {
  const base = path.posix.dirname(page);
  return markdown.replace(/\]\(((?!https?:|\/|#)[^)\s]+?)\.md(#[^)\s]*)?\)/g, (_m, target: string, anchor = "") => {
    const resolved = path.posix.normalize(path.posix.join(base, target)).replace(/^docs\//, "");
    return `](${DOCS_ROOT}/${resolved}${anchor})`;
  });
}

function pageHtml(title: string, markdown: string): string {
  const source = JSON.stringify(markdown).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · careflow</title>
<style>
body { font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #222; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; }
code, pre { font-family: Menlo, Consolas, monospace; font-size: 0.9em; background: #f4f4f4; }
pre { padding: 0.75rem; overflow-x: auto; } code { padding: 0 0.2em; } pre code { padding: 0; }
table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: 0.3rem 0.5rem; vertical-align: top; }
blockquote { border-left: 4px solid #ddd; margin-left: 0; padding-left: 1rem; color: #555; }
nav { font-size: 0.9em; margin-bottom: 1rem; } #source { white-space: pre-wrap; }
</style>
<script src="/editor/vendor/vendor.js"></script>
</head><body>
<nav><a href="${DOCS_ROOT}">careflow docs</a></nav>
<main id="doc"><pre id="source">${escapeHtml(markdown)}</pre></main>
<script>
(function () {
  var md = ${source};
  if (window.marked && window.DOMPurify) document.getElementById("doc").innerHTML = DOMPurify.sanitize(marked.parse(md));
  if (location.hash) { var el = document.getElementById(location.hash.slice(1)); if (el) el.scrollIntoView(); }
})();
</script>
</body></html>
`;
}

export function docsRouter(): Router {
  const router = Router();
  router.get(DOCS_ROOT, (_req, res) => {
    const list = Object.entries(PAGES)
      .map(([name, title]) => `- [${title}](${DOCS_ROOT}/${name})`)
      .join("\n");
    res.type("html").send(pageHtml("Docs", `# careflow docs\n\n${list}\n\nEach care node has a reference page, linked from its help in the editor.\n`));
  });
  router.get(`${DOCS_ROOT}/*`, (req, res, next) => {
    const page = req.path.slice(DOCS_ROOT.length + 1).replace(/\.md$/, "");
    const dir = docsDir();
    // The screenshots the pages show (docs/images/<name>.png).
    if (dir && /^images\/[a-z0-9-]+\.png$/.test(page)) {
      const image = path.join(dir, page);
      return fs.existsSync(image) ? res.type("png").sendFile(image) : next();
    }
    if (!dir || !(page in PAGES || NODE_PAGE.test(page))) return next();
    const file = path.join(dir, `${page}.md`);
    if (!fs.existsSync(file)) return next();
    const markdown = rewriteDocLinks(fs.readFileSync(file, "utf8"), page);
    if (req.accepts(["html", "text/markdown"]) === "text/markdown") return res.type("text/markdown").send(markdown);
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1] ?? page;
    res.type("html").send(pageHtml(title.replace(/`/g, ""), markdown));
  });
  return router;
}
