/**
 * Who may reach `/mcp`: first the request's Host and Origin (DNS-rebinding protection, on by
 * default: a web page on another site that resolves its own name to this address must not
 * drive the tools from the household's browser), then the key, from `X-API-Key`, else
 * `Authorization: Bearer`, else `?api_key=` (the reference's order). Missing or unknown key
 * 401, a key without `/mcp` access 403, too many wrong keys from one address 429.
 */
import net from "node:net";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Settings } from "../../../../settings";
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from "../../../platform/core/errors";
import { clientAddress } from "../../../platform/auth/authenticate";
import type { FailureThrottle } from "../../../platform/auth/failure-throttle";
import { isAllowed, type KeyStore } from "../../../platform/auth/key-store";

const lower = (s: string) => s.toLowerCase();

/** The host name of a Host header (no port, no IPv6 brackets), lower case; null when unreadable. */
export function hostName(host: string): string | null {
  try {
    return lower(new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, ""));
  } catch {
    return null;
  }
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export interface OriginPolicy {
  hostAllowed(host: string | undefined): boolean;
  originAllowed(origin: string | undefined, host: string | undefined): boolean;
}

export function originPolicy(settings: Pick<Settings, "mcp" | "app">): OriginPolicy {
  const publicUrl = settings.app.public_url;
  const hosts = new Set(["localhost", ...settings.mcp.allowed_hosts.map(lower)]);
  const origins = new Set(settings.mcp.allowed_origins.map(originOf).filter((o): o is string => o !== null));
  if (publicUrl) {
    const u = new URL(publicUrl);
    hosts.add(lower(u.hostname.replace(/^\[|\]$/g, "")));
    origins.add(u.origin);
  }
  const hostAllowed = (host: string | undefined): boolean => {
    if (!host) return true; // HTTP/1.0 without Host: not a browser
    const name = hostName(host);
    return name !== null && (net.isIP(name) !== 0 || hosts.has(name) || name.endsWith(".localhost"));
  };
  return {
    hostAllowed,
    originAllowed: (origin, host) => {
      if (origin === undefined) return true; // not a browser: agents and the SDK send none
      const o = originOf(origin);
      if (!o || o === "null") return false;
      if (origins.has(o)) return true;
      // The service's own pages (same origin as the Host it was reached at, which passed the host check).
      return host !== undefined && hostAllowed(host) && (o === `http://${lower(host)}` || o === `https://${lower(host)}`);
    },
  };
}

/** Refuses a request from a Host or Origin the policy does not allow (403), before any key is read. */
export function originGuard(policy: OriginPolicy): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const host = req.get("host");
    if (!policy.hostAllowed(host))
      return next(new ForbiddenError(`Host '${String(host).slice(0, 100)}' is not allowed for /mcp (add it to mcp.allowed_hosts)`));
    const origin = req.get("origin");
    if (!policy.originAllowed(origin, host))
      return next(new ForbiddenError(`Origin '${String(origin).slice(0, 100)}' is not allowed for /mcp (add it to mcp.allowed_origins)`));
    next();
  };
}

function mcpKey(req: Request): string | null {
  const header = req.get("x-api-key");
  if (header) return header;
  const auth = req.get("authorization");
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  if (m) return m[1].trim();
  const query = req.query.api_key;
  if (typeof query === "string" && query) return query;
  return null;
}

/** The key check of `/mcp`: the principal goes on `req.principal`. */
export function mcpAuth(keys: KeyStore, throttle: FailureThrottle): RequestHandler {
  const check = async (req: Request): Promise<Error | undefined> => {
    const key = mcpKey(req);
    if (!key) return new UnauthorizedError();
    const client = clientAddress(req);
    const wait = throttle.retryAfter(client);
    if (wait > 0) return new TooManyRequestsError(`Too many wrong keys from this address: try again in ${wait} s`, wait);
    const principal = await keys.resolve(key);
    if (!principal) {
      throttle.fail(client);
      return new UnauthorizedError("Invalid API key");
    }
    const method = req.method === "HEAD" ? "GET" : req.method;
    if (!isAllowed(principal, method, "/mcp")) return new ForbiddenError(`Permission denied: '${principal.name}' may not ${method} /mcp`);
    req.principal = principal;
    return undefined;
  };
  return (req: Request, _res: Response, next: NextFunction) => void check(req).then(next, next);
}
