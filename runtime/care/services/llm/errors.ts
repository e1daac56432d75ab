/**
 * One error type per way a model call fails. Messages name the model and, for the server,
 * its status, so a failed step in the execution timeline says what to fix.
 */

/** model_id names no `llm.models` entry. */
export class UnknownModelError extends Error {
  constructor(readonly modelId: string) {
    super(modelId ? `model '${modelId}' is not in llm.models` : "no model_id configured");
    this.name = "UnknownModelError";
  }
}

export type ServerFailure = "status" | "timeout" | "aborted" | "unreachable" | "bad_response";

/** The model server answered with an error status, broken JSON or nothing, or did not answer in time. */
export class ModelServerError extends Error {
  constructor(
    readonly modelId: string,
    readonly failure: ServerFailure,
    /** HTTP status when the server sent one. */
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = "ModelServerError";
  }
}

/** The server answered, but the answer is unusable (not the JSON asked for, or a hallucination after every retry). */
export class ModelAnswerError extends Error {
  constructor(
    readonly modelId: string,
    message: string,
  ) {
    super(message);
    this.name = "ModelAnswerError";
  }
}

/** "model 'x' (openai, http://host:8000/v1)": how every message starts. */
export const describeModel = (m: { id: string; api_type: string; base_url: string }): string => `model '${m.id}' (${m.api_type}, ${m.base_url})`;

/** Shortens a server's error body for a message (some servers send whole HTML pages). */
export const excerpt = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};
