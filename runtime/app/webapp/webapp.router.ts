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

export const WEBAPP_ROOT = "/app";

// dist/runtime/app/webapp → dist, and the repository above it.
const DIST = path.resolve(__dirname, "../../..");
const REPO = path.resolve(DIST, "..");
const STATIC = path.join(REPO, "webapp", "static");
const COMPILED = path.join(DIST, "webapp", "browser");

const FILES: Readonly<Record<string, StaticFile>> = {
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
