/**
 * What API tests wait on: something the app does in the background (a chat edited, a hub
 * state written, a run finished), polled every 20 ms until it is there or the time is up.
 */
import assert from "node:assert/strict";
import type { TestApp } from "./test-app";

/** A probe's answer that means "not yet": none, or an empty count, text or flag. */
type NotYet = undefined | null | false | 0 | "";

/**
 * The probe's first truthy value; throws naming `what` after `ms`. `null`, `false`, `0` and `""`
 * are "not yet" like `undefined`, so `eventually("a row", () => rows.length)` waits for a row
 * instead of passing at once on 0. To wait for a falsy value, probe for a truthy fact about it
 * (`() => count === 0`, which gives `true`).
 */
export async function eventually<T>(what: string, probe: () => T | NotYet | Promise<T | NotYet>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as T;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Imports a rule bundle (`schema_version` 1 added) with the admin key; its id. */
export async function importRule(t: TestApp, bundle: Record<string, unknown>): Promise<number> {
  const res = await t.post("/api/v1/rules/import", { schema_version: 1, ...bundle });
  assert.equal(res.status, 201, res.text);
  return res.body.rule_id as number;
}

/** A rule's runs, newest first, as `GET /workflows?rule_id=` lists them. */
export const runsOf = async (t: TestApp, ruleId: number): Promise<Array<Record<string, any>>> =>
  (await t.get(`/api/v1/workflows?rule_id=${ruleId}`)).body as Array<Record<string, any>>;
