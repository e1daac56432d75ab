/**
 * Routers only translate HTTP to a service call. `route` wraps a handler that takes the
 * request and returns a result: the result is sent as JSON (or with the given status),
 * and a thrown error reaches the one error handler.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";

export interface Reply {
  status: number;
  body?: unknown;
}

export const reply = (status: number, body?: unknown): Reply => ({ status, body });

const isReply = (v: unknown): v is Reply =>
  typeof v === "object" &&
  v !== null &&
  "status" in v &&
  typeof (v as Reply).status === "number" &&
  Object.keys(v).every((k) => k === "status" || k === "body");

export function route(handler: (req: Request, res: Response) => unknown | Promise<unknown>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .then((result) => {
        if (res.headersSent) return;
        if (isReply(result)) {
          if (result.body === undefined) res.status(result.status).end();
          else res.status(result.status).json(result.body);
        } else if (result === undefined) {
          res.status(204).end();
        } else {
          res.json(result);
        }
      })
      .catch(next);
  };
}
