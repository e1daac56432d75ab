/**
 * The editor's login (`POST /editor/auth/token`) behind the per-address throttle. A wrong
 * user or password is answered here (401, counted against the client's address) and never
 * reaches Node-RED, whose own lockout counts per user name from any client, so five wrong
 * guesses from anywhere would lock the admin out (and it answers that with a 500).
 */
import express, { type NextFunction, type Request, type Response, type RequestHandler } from "express";
import { clientAddress } from "../auth/authenticate";
import type { FailureThrottle } from "../auth/failure-throttle";
import { duringLogin } from "./editor-sessions";

export type LoginCheck = (username: string, password: string) => Promise<boolean>;

const form = express.urlencoded({ extended: false, limit: "16kb" });
const json = express.json({ limit: "16kb" });

const field = (body: unknown, name: string): string => {
  const v = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === "string" ? v : "";
};

export function loginThrottle(throttle: FailureThrottle, check: LoginCheck): RequestHandler[] {
  const gate = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (field(req.body, "grant_type") !== "password") return next(); // refresh and others: Node-RED's
    const client = clientAddress(req);
    const wait = throttle.retryAfter(client);
    if (wait > 0) {
      res
        .set("Retry-After", String(wait))
        .status(429)
        .json({ detail: `Too many failed logins from this address: try again in ${wait} s` });
      return;
    }
    const username = field(req.body, "username");
    const password = field(req.body, "password");
    if (!(await check(username, password))) {
      throttle.fail(client);
      res.status(401).json({ detail: "Login failed: user 'admin' with an admin API key, or 'caregiver' with a caregiver API key" });
      return;
    }
    // The session Node-RED creates for this login remembers which key opened it.
    duringLogin(username, password, next);
  };
  return [form, json, (req, res, next) => void gate(req, res, next).catch(next)];
}
