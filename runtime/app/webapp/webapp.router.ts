/**
 * The senior's web app at `/app/` (docs/webapp.md): its page, style, manifest and icons from
 * `webapp/static/`, its script and service worker as compiled from `webapp/browser/` into
 * `dist/webapp/browser/`. No key: the shell holds nothing of the household; the app brings
 * its key to `/ws`. Every file is revalidated (`no-cache`), so the service worker's
 * network-first copy and the browser both pick up an update at once.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { Router, type Response } from "express";

export const WEBAPP_ROOT = "/app";

// dist/runtime/app/webapp → dist, and the repository above it.
const DIST = path.resolve(__dirname, "../../..");
const REPO = path.resolve(DIST, "..");
const STATIC = path.join(REPO, "webapp", "static");
const COMPILED = path.join(DIST, "webapp", "browser");

const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  "": { file: path.join(STATIC, "index.html"), type: "text/html; charset=utf-8" },
  "app.css": { file: path.join(STATIC, "app.css"), type: "text/css; charset=utf-8" },
  "manifest.webmanifest": { file: path.join(STATIC, "manifest.webmanifest"), type: "application/manifest+json; charset=utf-8" },
  "icon-192.png": { file: path.join(STATIC, "icon-192.png"), type: "image/png" },
  "icon-512.png": { file: path.join(STATIC, "icon-512.png"), type: "image/png" },
  "app.js": { file: path.join(COMPILED, "app.js"), type: "text/javascript; charset=utf-8" },
  "knowledge.js": { file: path.join(COMPILED, "knowledge.js"), type: "text/javascript; charset=utf-8" },
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

async function sendFile(res: Response, name: string): Promise<void> {
  const entry = FILES[name];
  const body = entry ? await fs.readFile(entry.file).catch(() => null) : null;
  if (!entry || !body) {
    res.status(404).json({ detail: `No such file of the web app: /app/${name}` });
    return;
  }
  res.set({
    "content-type": entry.type,
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
    "content-security-policy": CSP,
    "referrer-policy": "no-referrer",
  });
  res.send(body);
}

export function webappRouter(): Router {
  const r = Router();
  // `/app` and `/app/` (Express matches both here): the page lives at `/app/`, the service
  // worker's scope; the set-up link's fragment (#key=…) survives the redirect.
  r.get(WEBAPP_ROOT, (req, res, next) => (req.path.endsWith("/") ? sendFile(res, "").catch(next) : res.redirect(301, `${WEBAPP_ROOT}/`)));
  r.get(`${WEBAPP_ROOT}/:file`, (req, res, next) => sendFile(res, req.params.file).catch(next));
  return r;
}
