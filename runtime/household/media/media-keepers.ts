/**
 * Objects other modules keep (a knowledge document's photos, a card's rendered slots): each
 * keeper says which of some object names it still holds. The sweep keeps those objects and a
 * signed URL serves them without a `camera_media` row (whose retention is for frames).
 */
import type { Knex } from "knex";

export type MediaKeeper = (db: Knex, objectNames: readonly string[]) => Promise<Set<string>>;
const keepers = new Set<MediaKeeper>();
export const registerMediaKeeper = (keeper: MediaKeeper): void => void keepers.add(keeper);

/** Which of `names` some keeper holds in this store. */
export async function keptByOthers(db: Knex, names: readonly string[]): Promise<Set<string>> {
  const kept = new Set<string>();
  for (const keeper of keepers) for (const n of await keeper(db, names)) kept.add(n);
  return kept;
}
