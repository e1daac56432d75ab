/**
 * JSON bodies, parsed only once the caller is known (or, for a device that sends its key
 * in the body, only on the routes devices post to), with a size limit per route and two
 * checks every handler can rely on: no NUL characters anywhere (PostgreSQL and the
 * renderer refuse them) and no nesting deeper than `MAX_JSON_DEPTH` (recursive code
 * downstream must not overflow the stack). Query strings get the same NUL check.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { ValidationError } from "../core/errors";
import { fnmatch } from "../auth/fnmatch";

/** As body-parser decides it (type-is): a body is announced by a length or a transfer coding. */
const hasBody = (req: Request): boolean =>
  req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] !== undefined && !Number.isNaN(Number(req.headers["content-length"])));

export const DEFAULT_BODY_LIMIT = "1mb";
export const MAX_JSON_DEPTH = 64;

/** Routes whose bodies are larger than the default, as `METHOD /path` patterns under /api/v1. */
const LARGER_BODIES: ReadonlyArray<{ pattern: string; limit: string }> = [
  { pattern: "POST /api/v1/device/camera", limit: "25mb" }, // a base64 JPEG frame
  { pattern: "POST /api/v1/rules/import", limit: "5mb" },
  { pattern: "POST /api/v1/rules/import/*", limit: "5mb" },
];

export function bodyLimitFor(method: string, path: string): string {
  const subject = `${method} ${path}`;
  return LARGER_BODIES.find((b) => fnmatch(subject, b.pattern))?.limit ?? DEFAULT_BODY_LIMIT;
}

/** The same limit in bytes ("25mb" → 26214400), for a body read without body-parser. */
export function bodyLimitBytes(method: string, path: string): number {
  const m = /^(\d+)(kb|mb)$/.exec(bodyLimitFor(method, path));
  return m ? Number(m[1]) * (m[2] === "mb" ? 1 << 20 : 1 << 10) : 1 << 20;
}

const parsers = new Map<string, RequestHandler>();
const parserFor = (limit: string): RequestHandler => {
  let p = parsers.get(limit);
  if (!p) parsers.set(limit, (p = express.json({ limit })));
  return p;
};

const fieldName = (path: string, key: string | number): string =>
  typeof key === "number" ? `${path}[${key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

/**
 * Walks a parsed value without recursion; returns the first problem naming the field
 * (`body.data.labels[2]: contains a NUL character`), or null.
 */
export function inputProblem(value: unknown, root: string): string | null {
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\u0000")) return `${path}: contains a NUL character`;
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) return `${root}: nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ v: item, path: fieldName(path, i), depth: depth + 1 }));
      continue;
    }
    for (const [k, item] of Object.entries(v)) {
      if (k.includes("\u0000")) return `${path}: a key contains a NUL character`;
      stack.push({ v: item, path: fieldName(path, k), depth: depth + 1 });
    }
  }
  return null;
}

/** Parses a JSON body with the route's limit, then refuses NUL characters and deep nesting. */
export function jsonBody(limit?: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // Most API calls are GETs without a body: body-parser would only set `{}` (as here), after
    // this route's limit was looked up by pattern matching.
    if (!hasBody(req)) {
      req.body ??= {};
      return next();
    }
    const parse = parserFor(limit ?? bodyLimitFor(req.method, req.baseUrl + req.path));
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      const problem = inputProblem(req.body, "body");
      next(problem ? new ValidationError(problem) : undefined);
    });
  };
}

/** Query parameters are text that reaches the store too. */
export const queryGuard: RequestHandler = (req, _res, next) => {
  const problem = inputProblem(req.query, "query");
  next(problem ? new ValidationError(problem) : undefined);
};
