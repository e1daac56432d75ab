/**
 * Express middleware: find the caller's key, resolve it, check `METHOD /path` against the
 * caller's patterns. Missing or unknown key → 401; known but not allowed → 403; too many
 * wrong keys from this client address → 429 with `Retry-After`.
 *
 * Resolution order (the spec's): the `X-API-Key` header, the `api_key` query parameter,
 * the `device_key` field of a JSON body. The first place that holds a key decides: a
 * wrong key in the header is not rescued by a right one in the query.
 *
 * The key is checked before the body is read. On the routes devices post to, a request
 * without a key in the header or query has its body's `device_key` read from the body's
 * first bytes (`body-key.ts`); only once that key is verified is the whole body parsed.
 *
 * The path checked is the one the router dispatches (`req.baseUrl + req.path`, encoded as
 * received, one trailing slash ignored), never the raw target: the app's first middleware
 * has refused targets the two could read differently (`http/request-target.ts`).
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from "../core/errors";
import { bodyLimitBytes } from "../http/json-body";
import { readBodyWithKey } from "./body-key";
import type { FailureThrottle } from "./failure-throttle";
import { fnmatch } from "./fnmatch";
import { isAllowed, type KeyStore } from "./key-store";
import type { Principal } from "./principal";
import { DEVICE_PERMISSION_PATTERNS } from "./roles";

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
  if (bodyParsed(req) && body && typeof body === "object" && !Array.isArray(body)) {
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

/** body-parser marks a request whose body it has read. */
const bodyParsed = (req: Request): boolean => (req as Request & { _body?: boolean })._body === true;

/** `METHOD /path` as the router dispatches it, matched against permission patterns. */
export const permissionPath = (req: Request): string => (req.baseUrl + req.path).replace(/\/+$/, "") || "/";

/** Routes a device may post to, where its key may come in the JSON body. */
const BODY_KEY_PATTERNS = Object.values(DEVICE_PERMISSION_PATTERNS)
  .flat()
  .filter((p) => p.startsWith("POST "));

const acceptsBodyKey = (req: Request): boolean => req.method === "POST" && BODY_KEY_PATTERNS.some((p) => fnmatch(`POST ${permissionPath(req)}`, p));

/** The address a throttle counts against: the socket's peer, never a header the client sets. */
export const clientAddress = (req: Request): string => req.socket.remoteAddress ?? "unknown";

export function authenticate(keys: KeyStore, throttle: FailureThrottle, authorization: AuthorizationHeaderMode = "none"): RequestHandler {
  const check = async (req: Request, source: KeySource | null): Promise<Error | undefined> => {
    if (!source) return new UnauthorizedError();
    const client = clientAddress(req);
    const wait = throttle.retryAfter(client);
    if (wait > 0) return new TooManyRequestsError(`Too many wrong keys from this address: try again in ${wait} s`, wait);
    const principal = await keys.resolve(source.key);
    if (!principal) {
      throttle.fail(client);
      return new UnauthorizedError("Invalid API key");
    }
    const path = permissionPath(req);
    const method = req.method === "HEAD" ? "GET" : req.method;
    if (!isAllowed(principal, method, path)) {
      return new ForbiddenError(`Permission denied: '${principal.name}' may not ${method} ${path}`);
    }
    req.principal = principal;
    return undefined;
  };
  /** A device's request with its key in the body: the key first, the rest of the body only for a right one. */
  const bodyKey = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const noKey = () => new UnauthorizedError(NO_BODY_KEY);
    const refuse = (err: Error) => {
      // The rest of the body is never read: the connection ends with the answer.
      res.set("Connection", "close");
      next(err);
    };
    if (!req.is("application/json") || (req.headers["content-encoding"] ?? "identity") !== "identity") return refuse(noKey());
    const limit = bodyLimitBytes(req.method, req.baseUrl + req.path);
    const read = await readBodyWithKey(req, limit, noKey, (key) => check(req, { key, from: "body" }));
    if ("error" in read) return refuse(read.error);
    req.body = read.body;
    (req as Request & { _body?: boolean })._body = true;
    // The body's device_key is a credential, not data: handlers never see it.
    if (read.body && typeof read.body === "object" && !Array.isArray(read.body)) delete (read.body as Record<string, unknown>).device_key;
    next();
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.principal) return next();
    const source = findKey(req, authorization);
    if (source || !acceptsBodyKey(req) || !hasBody(req)) return void check(req, source).then(next, next);
    bodyKey(req, res, next).catch(next);
  };
}

const NO_BODY_KEY = "Authentication required: send a key in X-API-Key, ?api_key=, or as device_key, the first field of the JSON body";

const hasBody = (req: Request): boolean => req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
