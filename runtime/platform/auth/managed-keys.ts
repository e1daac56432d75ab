/**
 * The lookup of keys made while the service runs (`managed_keys`), for `KeyStore`: every
 * presented key that is no settings key is looked up by its digest in the store, so a key
 * made, rotated or revoked through any instance counts at the very next request everywhere.
 * A key's use is noted (`last_used_at`) at most once a minute, never a write per request.
 */
import type { Knex } from "knex";
import type { DeviceKeyEntry } from "../../../settings";
import { isoAt, type Clock } from "../core/clock";
import type { Logger } from "../core/logger";
import { apiPrincipal, devicePrincipal, type ManagedKeyLookup } from "./key-store";
import { managedKeyByDigest, touchManagedKey, type ManagedKeyRow } from "./managed-keys.store";
import type { Principal } from "./principal";

/** A key's use is written at most this often. */
export const LAST_USED_EVERY_MS = 60_000;

/** More keys than this noted and the note of uses starts over (a bound, not an expected size). */
const MAX_NOTED = 10_000;

export function principalOfManagedKey(row: Pick<ManagedKeyRow, "id" | "name" | "kind" | "role" | "device_type" | "sensor_id">): Principal | null {
  if (row.kind === "api" && row.role) return { ...apiPrincipal({ name: row.name, permissions: [row.role] }), key_id: row.id };
  if (row.kind === "device" && row.device_type && row.sensor_id) {
    const device = { name: row.name, sensor_id: row.sensor_id, device_type: row.device_type as DeviceKeyEntry["device_type"], permissions: [] };
    return { ...devicePrincipal(device), key_id: row.id };
  }
  return null;
}

export function managedKeyLookup(db: Knex, clock: Clock, log: Logger): ManagedKeyLookup {
  /** When this instance last wrote each key's use. */
  const noted = new Map<number, number>();
  const noteUse = (id: number): void => {
    const now = clock.now();
    if (now - (noted.get(id) ?? -Infinity) < LAST_USED_EVERY_MS) return;
    if (noted.size >= MAX_NOTED) noted.clear();
    noted.set(id, now);
    // Not awaited: the request does not wait for a bookkeeping write, nor fails with it.
    touchManagedKey(db, id, isoAt(now), isoAt(now - LAST_USED_EVERY_MS)).catch((err: unknown) =>
      log.warn({ err: (err as Error).message, key_id: id }, "keys: could not note a key's last use"),
    );
  };
  return {
    async byDigest(digest: Buffer): Promise<Principal | null> {
      const row = await managedKeyByDigest(db, digest.toString("hex"));
      if (!row) return null;
      noteUse(row.id);
      return principalOfManagedKey(row);
    },
  };
}
