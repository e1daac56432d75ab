/**
 * In front of the editor's admin API (`/editor/*`): an `Authorization: Bearer` token is a key
 * of an editor user or a session Node-RED issued at a login; anything else is a wrong key,
 * answered 401 here and counted by the same per-address throttle as REST keys and editor
 * passwords (a blocked address never got this far). The editor's diagnostics (Node version,
 * OS, install paths) are for the admin only, whatever Node-RED's caregiver scope (`read`) grants.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ForbiddenError, UnauthorizedError } from "../core/errors";
import { clientAddress } from "../auth/authenticate";
import type { FailureThrottle } from "../auth/failure-throttle";
import type { KeyStore } from "../auth/key-store";
import { userOfKey, withCheckedBearer } from "./admin-auth";
import { liveSession } from "./editor-sessions";

/** As Node-RED reads it: the second word of an `Authorization: Bearer …` header. */
function bearerOf(req: Request): string | null {
  const parts = (req.get("authorization") ?? "").split(" ");
  return parts.length >= 2 && /^bearer$/i.test(parts[0]) && parts[1] ? parts[1] : null;
}

/** `GET /editor/diagnostics` in any case, with or without a trailing slash (Express routes so). */
const isDiagnostics = (req: Request): boolean => (req.method === "GET" || req.method === "HEAD") && /^\/diagnostics\/?$/i.test(req.path);

/** Who a token is in the editor: a key's user, a session's user, a session just ended (its key gone), or nobody. */
async function editorUser(keys: KeyStore, token: string): Promise<{ name: string; byKey: boolean } | "ended" | null> {
  const user = await userOfKey(keys, token);
  if (user) return { name: user.username, byKey: true };
  const session = await liveSession(keys, token);
  return session && session !== "ended" ? { name: session.user, byKey: false } : session;
}

/** Mounted at the editor's root, before Node-RED's admin API. */
export function editorBearerGate(keys: KeyStore, throttle: FailureThrottle): RequestHandler {
  const gate = async (req: Request, next: NextFunction): Promise<void> => {
    const header = bearerOf(req);
    const query = typeof req.query.access_token === "string" ? req.query.access_token : null;
    const diagnostics = isDiagnostics(req);
    if (!header && !(diagnostics && query)) return next();
    const token = (header ?? query)!;
    const user = await editorUser(keys, token);
    // No guess either: a real session whose key was revoked or changed since it logged in.
    if (user === "ended") return next(new UnauthorizedError("This editor session has ended: the key it was opened with was revoked or changed. Log in again."));
    if (!user) {
      // A key of a caller that is no editor user (a display's) is no guess: Node-RED answers it 401.
      if (await keys.resolve(token)) return next();
      throttle.fail(clientAddress(req));
      return next(new UnauthorizedError("Invalid token: an admin or caregiver API key, or the editor's login session"));
    }
    if (diagnostics && user.name !== "admin") return next(new ForbiddenError("The editor's diagnostics are for the admin only"));
    if (user.byKey) return withCheckedBearer(token, () => next());
    next();
  };
  return (req: Request, _res: Response, next: NextFunction) => void gate(req, next).catch(next);
}
