import type { NextFunction, Request, RequestHandler, Response } from "express";

/** Express 4 ignores rejected promises; this hands them to the error handler. */
export function asyncRoute(handler: (req: Request, res: Response, next: NextFunction) => Promise<void>): RequestHandler {
  return (req, res, next) => {
    handler(req, res, next).catch(next);
  };
}
