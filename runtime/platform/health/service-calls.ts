/**
 * What the last real call to a model server, the speech service or the media store said (issue 44 §1), from the
 * clients that make them to the parts board. Process-wide listeners, not the app context: the
 * model clients are plain functions called from steps, the knowledge search and the authoring
 * helper, none of which carries the context; each app's board listens while it runs and keeps
 * only the addresses it knows.
 */
export interface ServiceCall {
  service: "model" | "tts" | "media";
  /** The base address called (`llm.models[].base_url`, `tts.url`, the media store's `where`). */
  url: string;
  /** The server answered (even with an answer careflow could not use); false: it did not, or failed. */
  up: boolean;
  /** Why not, when down. */
  detail?: string;
}

const listeners = new Set<(call: ServiceCall) => void>();

export function reportServiceCall(call: ServiceCall): void {
  for (const listener of listeners) listener(call);
}

export function onServiceCall(listener: (call: ServiceCall) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A fetch failure in a few words: "connection refused", "host not found", or the error's own. */
export function describeFetchFailure(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? (err.cause as Error & { code?: string }) : null;
  const code = cause?.code ?? (err as { code?: string } | null)?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found";
  if (code === "ECONNRESET") return "connection reset";
  if (code === "UND_ERR_SOCKET") return "the connection was closed";
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return "no answer in time";
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}
