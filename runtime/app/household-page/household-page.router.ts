/**
 * The family's Household page at `/household/` (docs/household-page.md, issue 43 §1): its page
 * and style from `editor-plugins/household-page/static/`, its scripts as compiled from
 * `editor-plugins/household-page/browser/` into `dist/`, served as the Knowledge page is. Its
 * base style is the Knowledge page's own `page.css`, so the two pages look and change alike;
 * `household.css` adds what only this page has. The editor links to it; the page asks for the
 * key one logs in to the editor with and calls `/api/v1` with it.
 */
import path from "node:path";
import type { Router } from "express";
import { CSS, HTML, JS, staticPageRouter, type StaticFile } from "../../platform/http/static-page";
import { shippedLanguages } from "../../platform/i18n/catalogs";

export const HOUSEHOLD_PAGE_ROOT = "/household";

// dist/runtime/app/household-page → dist, and the repository above it.
const DIST = path.resolve(__dirname, "../../..");
const PLUGIN = "editor-plugins/household-page";
const STATIC = path.join(DIST, "..", PLUGIN, "static");
const COMPILED = path.join(DIST, PLUGIN, "browser");
const KNOWLEDGE_STATIC = path.join(DIST, "..", "editor-plugins/knowledge-page/static");

const SCRIPTS = ["hp-core", "hp-devices", "hp-people", "hp-chat", "hp-access", "hp-rooms", "hp-connections", "hp-health", "hp-backups", "hp-setup"];

const FILES: Record<string, StaticFile> = {
  "": { file: path.join(STATIC, "index.html"), type: HTML },
  "page.css": { file: path.join(KNOWLEDGE_STATIC, "page.css"), type: CSS },
  "household.css": { file: path.join(STATIC, "household.css"), type: CSS },
  ...Object.fromEntries(SCRIPTS.map((s) => [`${s}.js`, { file: path.join(COMPILED, `${s}.js`), type: JS }])),
  // The languages careflow has a catalog for, each in its own name: the People form's picker.
  "languages.json": { body: () => JSON.stringify(shippedLanguages()), type: "application/json; charset=utf-8" },
};

// The page's own scripts and styles; a QR code is an SVG the page shows as a data: image.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

export const householdPageRouter = (): Router => staticPageRouter({ root: HOUSEHOLD_PAGE_ROOT, files: FILES, csp: CSP, what: "the Household page" });
