/**
 * The caregiver's Knowledge page at `/knowledge/` (docs/knowledge-page.md): its page and style
 * from `editor-plugins/knowledge-page/static/`, its scripts as compiled from
 * `editor-plugins/knowledge-page/browser/` into `dist/`. The editor links to it; the page
 * asks for the caregiver's key and calls `/api/v1` with it.
 */
import path from "node:path";
import type { Router } from "express";
import { CSS, HTML, JS, staticPageRouter, type StaticFile } from "../../platform/http/static-page";

export const KNOWLEDGE_PAGE_ROOT = "/knowledge";

// dist/runtime/app/knowledge-page → dist, and the repository above it.
const DIST = path.resolve(__dirname, "../../..");
const PLUGIN = "editor-plugins/knowledge-page";
const STATIC = path.join(DIST, "..", PLUGIN, "static");
const COMPILED = path.join(DIST, PLUGIN, "browser");

const SCRIPTS = ["kp-core", "kp-documents", "kp-drafts", "kp-library"];

const FILES: Record<string, StaticFile> = {
  "": { file: path.join(STATIC, "index.html"), type: HTML },
  "page.css": { file: path.join(STATIC, "page.css"), type: CSS },
  ...Object.fromEntries(SCRIPTS.map((s) => [`${s}.js`, { file: path.join(COMPILED, `${s}.js`), type: JS }])),
};

// The page's own scripts and styles; pictures are signed media URLs, which name
// `app.public_url` when it is set (another address of this server).
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: http: https:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

export const knowledgePageRouter = (): Router => staticPageRouter({ root: KNOWLEDGE_PAGE_ROOT, files: FILES, csp: CSP, what: "the Knowledge page" });
