/**
 * A count of the rule writes this process committed, per store: whoever keeps rules between
 * reads (a trigger's rules, read for thousands of tracking events a second) compares it to
 * know at once that what it kept is stale. Bumped after the commit, so a read that starts
 * after a bump sees the write.
 */
import type { Knex } from "knex";

const versions = new WeakMap<Knex, number>();

export const rulesVersion = (db: Knex): number => versions.get(db) ?? 0;

export function bumpRulesVersion(db: Knex): void {
  versions.set(db, rulesVersion(db) + 1);
}
