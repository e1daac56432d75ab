/**
 * One error type per failure kind; `runtime/http/error-handler.ts` maps them to HTTP
 * status in one place, always with the body `{"detail": "..."}`.
 */
export class CareflowError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends CareflowError {
  constructor(message: string) {
    super(400, message);
  }
}
export class UnauthorizedError extends CareflowError {
  constructor(message = "Authentication required: send an API key in X-API-Key") {
    super(401, message);
  }
}
export class ForbiddenError extends CareflowError {
  constructor(message: string) {
    super(403, message);
  }
}
export class NotFoundError extends CareflowError {
  constructor(message: string) {
    super(404, message);
  }
}
export class ConflictError extends CareflowError {
  constructor(message: string) {
    super(409, message);
  }
}
/**
 * A part of the home that is not set up (no language model, say): a 409 whose body adds
 * `not_set_up` beside `detail`: which part, and what a family reads on its screens, where the
 * detail (with its settings path) is for integrators.
 */
export class NotSetUpError extends ConflictError {
  constructor(
    message: string,
    readonly notSetUp: { part: string; message: string },
  ) {
    super(message);
  }
}
export class ValidationError extends CareflowError {
  constructor(message: string) {
    super(422, message);
  }
}
/** Too many attempts from one client; `retryAfterSeconds` goes out as `Retry-After`. */
export class TooManyRequestsError extends CareflowError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}
/** A backing service the household runs is unreachable; callers degrade as the spec says. */
export class ServiceUnavailableError extends CareflowError {
  constructor(message: string) {
    super(503, message);
  }
}
