/**
 * Express middleware: find the caller's key, resolve it, check `METHOD /path` against the
 * caller's patterns. Missing or unknown key → 401; known but not allowed → 403.
 *
 * Resolution order (the spec's): the `X-API-Key` header, the `api_key` query parameter,
 * the `device_key` field of a JSON body. The first place that holds a key decides: a
 * wrong key in the header is not rescued by a right one in the query.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ForbiddenError, UnauthorizedError } from "../core/errors";
import { isAllowed, type KeyStore } from "./key-store";
import type { Principal } from "./principal";

declare module "express-serve-static-core" {
  interface Request {
    principal?: Principal;
  }
}

/** Where else a key may come from, beyond the three standard places. */
export type AuthorizationHeaderMode = "none" | "bearer" | "bare-or-bearer";

export interface KeySource {
  key: string;
  from: "header" | "query" | "body" | "authorization";
}

export function findKey(req: Request, authorization: AuthorizationHeaderMode = "none"): KeySource | null {
  const header = req.get("x-api-key");
  if (header) return { key: header, from: "header" };
  const query = req.query.api_key;
  if (typeof query === "string" && query) return { key: query, from: "query" };
  const body: unknown = req.body;
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const deviceKey = (body as Record<string, unknown>).device_key;
    if (typeof deviceKey === "string" && deviceKey) return { key: deviceKey, from: "body" };
  }
  if (authorization !== "none") {
    const auth = req.get("authorization");
    const m = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
    if (m) return { key: m[1], from: "authorization" };
    if (auth && authorization === "bare-or-bearer" && !/\s/.test(auth.trim())) return { key: auth.trim(), from: "authorization" };
  }
  return null;
}

/** The full path of the request without the query, as matched against permission patterns. */
export const requestPath = (req: Request): string => (req.originalUrl.split("?")[0] || "/").replace(/\/+$/, "") || "/";

export function authenticate(keys: KeyStore, authorization: AuthorizationHeaderMode = "none"): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (req.principal) return next();
    const source = findKey(req, authorization);
    if (!source) return next(new UnauthorizedError());
    const principal = keys.resolve(source.key);
    if (!principal) return next(new UnauthorizedError("Invalid API key"));
    const path = requestPath(req);
    const method = req.method === "HEAD" ? "GET" : req.method;
    if (!isAllowed(principal, method, path)) {
      return next(new ForbiddenError(`Permission denied: '${principal.name}' may not ${method} ${path}`));
    }
    req.principal = principal;
    // The body's device_key is a credential, not data: handlers never see it.
    if (source.from === "body") delete (req.body as Record<string, unknown>).device_key;
    next();
  };
}
