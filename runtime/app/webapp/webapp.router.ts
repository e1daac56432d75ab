/**
 * The senior's web app at `/app/` (docs/webapp.md): its page, style, manifest and icons from
 * `webapp/static/`, its script and service worker as compiled from `webapp/browser/` into
 * `dist/webapp/browser/`. No key: the shell holds nothing of the household; the app brings
 * its key to `/ws`. Every file is revalidated (`no-cache`), so the service worker's
 * network-first copy and the browser both pick up an update at once.
 */
import path from "node:path";
import type { Router } from "express";
import { staticPageRouter, type StaticFile } from "../../platform/http/static-page";
import { fontFiles } from "../../care/services/eink/fonts";
import { CATALOG_DIR, SOURCE_LANGUAGE } from "../../platform/i18n/catalogs";

export const WEBAPP_ROOT = "/app";

// dist/runtime/app/webapp → dist, and the repository above it.
const DIST = path.resolve(__dirname, "../../..");
const REPO = path.resolve(DIST, "..");
const STATIC = path.join(REPO, "webapp", "static");
const COMPILED = path.join(DIST, "webapp", "browser");

const FONT_TYPE = "font/ttf";

/**
 * The fonts the e-ink cards draw with (Noto Sans and one Noto family per Indian script), as
 * the tablet's own: `@font-face` rules for careflow's copies, and the stack the page's text uses,
 * so Devanagari and the other scripts draw on a tablet that has no such font and no network.
 */
function fontsCss(): string {
  const files = fontFiles();
  const faces = files.map(
    (f) =>
      `@font-face { font-family: "careflow ${f.family}"; src: url("/app/${f.filename}") format("truetype"); font-weight: ${f.weight}; font-display: swap; }`,
  );
  const stack = [...new Set(files.map((f) => `"careflow ${f.family}"`))].join(", ");
  return `${faces.join("\n")}\n:root { --careflow-fonts: ${stack || "sans-serif"}; }\n`;
}

const FILES: Readonly<Record<string, StaticFile>> = {
  ...Object.fromEntries(fontFiles().map((f) => [f.filename, { file: f.file, type: FONT_TYPE }])),
  "fonts.css": { body: fontsCss, type: "text/css; charset=utf-8" },
  // i18next in the page (its browser build), and the English catalog the app starts from before its
  // first welcome names her language (and recognises a prompt's words as the spec's English defaults).
  "i18next.js": { file: path.join(path.dirname(require.resolve("i18next")), "..", "umd", "i18next.min.js"), type: "text/javascript; charset=utf-8" },
  [`messages.${SOURCE_LANGUAGE}.json`]: { file: path.join(CATALOG_DIR, `${SOURCE_LANGUAGE}.json`), type: "application/json; charset=utf-8" },
  "": { file: path.join(STATIC, "index.html"), type: "text/html; charset=utf-8" },
  "app.css": { file: path.join(STATIC, "app.css"), type: "text/css; charset=utf-8" },
  "manifest.webmanifest": { file: path.join(STATIC, "manifest.webmanifest"), type: "application/manifest+json; charset=utf-8" },
  "icon-192.png": { file: path.join(STATIC, "icon-192.png"), type: "image/png" },
  "icon-512.png": { file: path.join(STATIC, "icon-512.png"), type: "image/png" },
  "app.js": { file: path.join(COMPILED, "app.js"), type: "text/javascript; charset=utf-8" },
  "knowledge.js": { file: path.join(COMPILED, "knowledge.js"), type: "text/javascript; charset=utf-8" },
  "voice.js": { file: path.join(COMPILED, "voice.js"), type: "text/javascript; charset=utf-8" },
  "sw.js": { file: path.join(COMPILED, "sw.js"), type: "text/javascript; charset=utf-8" },
  "mic-worklet.js": { file: path.join(COMPILED, "mic-worklet.js"), type: "text/javascript; charset=utf-8" },
};

// Scripts and styles only from here; the socket, speech clips and frames may come from
// `app.public_url` when it names another address.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: http: https:",
  "media-src 'self' blob: http: https:",
  "connect-src 'self' ws: wss: http: https:",
  "worker-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const webappRouter = (): Router => staticPageRouter({ root: WEBAPP_ROOT, files: FILES, csp: CSP, what: "the web app" });
