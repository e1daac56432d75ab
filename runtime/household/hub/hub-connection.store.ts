/**
 * The hub's address and token as the family set them on the Household page: kept in the store
 * (`kv`, key `hub.connection`) and used instead of the settings file's `hub.url` and
 * `hub.token` from then on, at every start and on every instance (docs/decisions.md, "The hub
 * is set up in the browser"). The token is kept as the settings file keeps it; no answer ever
 * carries it back.
 */
import type { Knex } from "knex";
import { kvGet, kvSet } from "../../platform/db/kv";

const KEY = "hub.connection";

export interface SavedHubConnection {
  url: string;
  token: string;
  saved_at: string;
  saved_by: string;
}

export async function savedHubConnection(db: Knex): Promise<SavedHubConnection | null> {
  const text = await kvGet(db, KEY);
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Partial<SavedHubConnection>;
    return typeof v.url === "string" && typeof v.token === "string"
      ? { url: v.url, token: v.token, saved_at: String(v.saved_at ?? ""), saved_by: String(v.saved_by ?? "") }
      : null;
  } catch {
    return null; // unreadable: the settings file's hub stands
  }
}

export async function saveHubConnection(db: Knex, c: SavedHubConnection): Promise<void> {
  await kvSet(db, KEY, JSON.stringify(c), c.saved_at);
}
