/** Maps every failure to an HTTP status with the body `{"detail": "..."}`, in one place. */
import type { ErrorRequestHandler, RequestHandler } from "express";
import { CareflowError, NotSetUpError, TooManyRequestsError } from "../core/errors";
import type { Logger } from "../core/logger";

interface BodyParserError {
  type?: string;
  status?: number;
  message?: string;
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof CareflowError) {
      // 503: a part that is not configured or not running, which a caller (the web app's key
      // among them) can ask for again and again; one warning line, no stack (issue 51 item 11).
      if (err.status === 503) log.warn({ status: 503, method: req.method, path: req.path }, err.message);
      else if (err.status >= 500) log.error({ err, path: req.path }, err.message);
      if (err instanceof TooManyRequestsError) res.set("Retry-After", String(err.retryAfterSeconds));
      res.status(err.status).json(err instanceof NotSetUpError ? { detail: err.message, not_set_up: err.notSetUp } : { detail: err.message });
      return;
    }
    const parserError = err as BodyParserError;
    if (parserError && parserError.type === "entity.parse.failed") {
      res.status(422).json({ detail: `body: not valid JSON (${parserError.message ?? "parse error"})` });
      return;
    }
    if (parserError && parserError.type === "entity.too.large") {
      res.status(413).json({ detail: "body: too large" });
      return;
    }
    if (parserError && typeof parserError.status === "number" && parserError.status >= 400 && parserError.status < 500) {
      res.status(parserError.status).json({ detail: parserError.message ?? "bad request" });
      return;
    }
    log.error({ err, method: req.method, path: req.path }, "unhandled error");
    res.status(500).json({ detail: "Internal server error" });
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ detail: `Not found: ${req.method} ${req.path}` });
};
