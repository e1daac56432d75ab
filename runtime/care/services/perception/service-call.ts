/**
 * One request to an external service the household runs (scene analysis, semantic memory):
 * under the service's timeout and the step's signal, answering either the parsed JSON body or
 * a sentence saying why there is none, for the step's record. A cancelled or timed-out step
 * is not a reason but an abort, and is thrown as one so the engine handles it as usual.
 */
import type { ServiceAnswer } from "../../../../vocabulary/answers";
import { deadline } from "../llm/deadline";

export interface ServiceSettings {
  enabled: boolean;
  url: string;
  timeout_seconds: number;
}

export interface ServiceRequest {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  headers?: Record<string, string>;
  body?: FormData | string;
}

/** The JSON body of a 2xx answer; `notFound` when the service answered 404 and the caller allows it. */
export type RawAnswer = ServiceAnswer<unknown> | { readonly ok: true; readonly value: undefined; readonly notFound: true };

export async function callService(name: string, settings: ServiceSettings, req: ServiceRequest, signal: AbortSignal, allow404 = false): Promise<RawAnswer> {
  if (!settings.enabled) return { ok: false, reason: `${name} is disabled (${settingName(name)}.enabled is false)` };
  const url = new URL(settings.url + req.path);
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  const d = deadline(settings.timeout_seconds, signal);
  let res: Response;
  try {
    res = await fetch(url, { method: req.method, headers: req.headers, body: req.body, signal: d.signal });
  } catch (err) {
    if (d.aborted()) throw signal.reason ?? err;
    if (d.timedOut()) return { ok: false, reason: `${name} at ${settings.url} did not answer within ${settings.timeout_seconds} s` };
    return { ok: false, reason: `${name} at ${settings.url} is unreachable: ${causeOf(err)}` };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (d.aborted()) throw signal.reason ?? err;
    return { ok: false, reason: `${name} at ${settings.url} broke off its answer: ${causeOf(err)}` };
  }
  if (res.status === 404 && allow404) return { ok: true, value: undefined, notFound: true };
  if (!res.ok) return { ok: false, reason: `${name} answered ${req.method} ${req.path} with HTTP ${res.status}${detailOf(text)}` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: `${name} answered ${req.method} ${req.path} with a body that is not JSON` };
  }
}

/** `scene analysis` → `scene_analysis`. */
const settingName = (name: string): string => name.replace(/ service$/, "").replace(/[ -]/g, "_");

function causeOf(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; message?: string };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as { detail?: unknown; error?: unknown };
    const detail = body.detail ?? body.error;
    if (typeof detail === "string" && detail) return `: ${detail.slice(0, 200)}`;
  } catch {
    // not JSON: the status says enough
  }
  return "";
}

/** A bad answer's reason. */
export const unreadable = (name: string, what: string): { ok: false; reason: string } => ({
  ok: false,
  reason: `${name} answered something that is not ${what}`,
});
