import type { ErrorRequestHandler } from "express";

/** Failures a client can act on. Each kind has one status; `toHttp` is the only mapping. */
export class TtsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A request field is wrong; the message starts with the field name. */
export class ValidationError extends TtsError {
  constructor(field: string, problem: string) {
    super(422, `${field}: ${problem}`);
  }
}

export class NotFoundError extends TtsError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends TtsError {
  constructor(message: string) {
    super(409, message);
  }
}

/** No engine can serve the request at all (the reference answers 400 here). */
export class NoEngineError extends TtsError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends TtsError {
  constructor() {
    super(401, "authentication required or invalid key");
  }
}

/**
 * The service listens beyond this machine and `TTS_API_KEY` is not set: no key a client could
 * send would help, so 403 (not 401), and the detail tells whoever reads it what the operator must do.
 */
export class KeyRequiredError extends TtsError {
  constructor() {
    super(
      403,
      "TTS_API_KEY must be set: this service listens on a network address without a key, so speech and " +
        "voice upload and delete are refused; set TTS_API_KEY (clients send it as Authorization: Bearer " +
        "or X-API-Key), or listen on this machine only (TTS_HOST=127.0.0.1, the default)",
    );
  }
}

/** A backend refused the request itself (4xx), which falling back would only hide. */
export class BackendRejectedError extends TtsError {}

/** A backend cannot be reached or failed (network error, 5xx, timeout): callers fall back. */
export class EngineUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "EngineUnavailableError";
  }
}

/** Maps any error to the spec's `{"detail": "..."}` body; unknown errors are 500 and logged. */
export function errorHandler(log: (err: unknown) => void): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    const { status, detail } = toHttp(err);
    if (status >= 500) log(err);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(status).json({ detail });
  };
}

function toHttp(err: unknown): { status: number; detail: string } {
  if (err instanceof TtsError) return { status: err.status, detail: err.message };
  const known = err as { type?: string; name?: string; code?: string; field?: string; message?: string };
  if (known.type === "entity.parse.failed") return { status: 422, detail: "body: invalid JSON" };
  if (known.type === "entity.too.large") return { status: 413, detail: "body: too large" };
  if (known.name === "MulterError") {
    const status = known.code === "LIMIT_FILE_SIZE" ? 413 : 422;
    return { status, detail: `${known.field ?? "file"}: ${known.message ?? "invalid upload"}` };
  }
  return { status: 500, detail: "internal server error" };
}
