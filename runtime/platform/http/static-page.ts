/**
 * A page of static files at a root path (the senior's web app at `/app/`, the caregiver's
 * Knowledge page at `/knowledge/`): a fixed table of files, each revalidated on every load
 * (`no-cache`), under a content security policy of the page's own. No key: a shell holds
 * nothing of the household; its script brings a key to the API.
 */
import fs from "node:fs/promises";
import { Router, type Response } from "express";

/** A file on disk, or one made by careflow (a style sheet written from what is installed). */
export type StaticFile = { file: string; type: string } | { body: () => string; type: string };

export interface StaticPage {
  /** e.g. `/app`; the page itself is served at `${root}/`. */
  root: string;
  /** File name under the root (`""` is the page) → where it is and its content type. */
  files: Readonly<Record<string, StaticFile>>;
  csp: string;
  /** Said in the 404's detail: "No such file of <what>". */
  what: string;
}

export const HTML = "text/html; charset=utf-8";
export const CSS = "text/css; charset=utf-8";
export const JS = "text/javascript; charset=utf-8";

async function sendFile(page: StaticPage, res: Response, name: string): Promise<void> {
  const entry = Object.prototype.hasOwnProperty.call(page.files, name) ? page.files[name] : undefined;
  const body = !entry ? null : "body" in entry ? entry.body() : await fs.readFile(entry.file).catch(() => null);
  if (!entry || !body) {
    res.status(404).json({ detail: `No such file of ${page.what}: ${page.root}/${name}` });
    return;
  }
  res.set({
    "content-type": entry.type,
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
    "content-security-policy": page.csp,
    "referrer-policy": "no-referrer",
  });
  res.send(body);
}

export function staticPageRouter(page: StaticPage): Router {
  const r = Router();
  // `/x` and `/x/` (Express matches both here): the page lives at `/x/`, so relative URLs and
  // a fragment (#key=…) survive the redirect.
  r.get(page.root, (req, res, next) => (req.path.endsWith("/") ? sendFile(page, res, "").catch(next) : res.redirect(301, `${page.root}/`)));
  r.get(`${page.root}/:file`, (req, res, next) => sendFile(page, res, req.params.file).catch(next));
  return r;
}
