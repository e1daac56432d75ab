/**
 * A stand-in behaviour for a step type that has none yet (hub_action, say), so a test can
 * make a slow or watching step: the handler is set and the type stops being "pending", so
 * rules with it deploy. The returned function puts both back.
 */
import type { StepHandler } from "../../nodes/_kit/handler-types";
import { registry } from "../../nodes/registry.generated";

type Entry = { spec: { type: string; pending?: string }; handler?: StepHandler<unknown, unknown> };

export function standInHandler(type: string, handler: StepHandler<unknown, unknown>): () => void {
  const entry = (registry.steps as ReadonlyArray<Entry>).find((e) => e.spec.type === type);
  if (!entry) throw new Error(`no step type ${type}`);
  const { pending } = entry.spec;
  const original = entry.handler;
  entry.handler = handler;
  delete entry.spec.pending;
  return () => {
    entry.handler = original;
    if (pending !== undefined) entry.spec.pending = pending;
  };
}

/** Lets rules with a pending type deploy (as rules saved before a check existed would be), keeping it handler-less. */
export function allowPendingDeploy(type: string): () => void {
  const entry = (registry.steps as ReadonlyArray<Entry>).find((e) => e.spec.type === type);
  if (!entry) throw new Error(`no step type ${type}`);
  const { pending } = entry.spec;
  delete entry.spec.pending;
  return () => {
    if (pending !== undefined) entry.spec.pending = pending;
  };
}

/**
 * Makes a step type one whose behaviour is not built (no handler, `pending` set), for tests of
 * what careflow does with such a type: the palette, the catalogs, deploy refusals, a run that
 * meets one. Types get built over time, so these tests pick one and unbuild it. Restores both.
 */
export function unbuiltStep(type: string, pending: string): () => void {
  const entry = (registry.steps as ReadonlyArray<Entry>).find((e) => e.spec.type === type);
  if (!entry) throw new Error(`no step type ${type}`);
  const before = { pending: entry.spec.pending, handler: entry.handler };
  entry.spec.pending = pending;
  delete entry.handler;
  return () => {
    entry.handler = before.handler;
    if (before.pending === undefined) delete entry.spec.pending;
    else entry.spec.pending = before.pending;
  };
}
