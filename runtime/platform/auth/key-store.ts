/**
 * The keys this service accepts and who they belong to: the settings file's (and the
 * environment's), and the keys made while the service runs (`managed-keys.ts`).
 *
 * The settings' keys are looked up in constant time in the presented key: it is hashed once
 * and compared with `timingSafeEqual` against the digest of every configured key, without an
 * early exit, so response timing reveals neither a prefix nor which entry matched. Only when
 * none matches is the digest looked up among the managed keys, in the store: an index lookup
 * of a SHA-256 digest, whose timing tells nothing about the key (a guesser cannot choose the
 * digest's prefix), and which every instance of a cluster sees at once.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { ApiKeyEntry, DeviceKeyEntry, RoleName } from "../../../settings";
import { fnmatch } from "./fnmatch";
import type { Principal } from "./principal";
import { ADMIN_ONLY_PATTERNS, DEFAULT_DEVICE_PERMISSIONS, expandPermissions, isRoleName } from "./roles";

interface Entry {
  digest: Buffer;
  principal: Principal;
}

/** A settings key as the key list shows it: never the key or its digest. */
export interface SettingsKeyInfo {
  name: string;
  kind: "api" | "device";
  roles: readonly string[];
  device_type: string | null;
  sensor_id: string | null;
}

/** The keys made while the service runs: the principal of the active one with this digest. */
export interface ManagedKeyLookup {
  byDigest(digest: Buffer): Promise<Principal | null>;
}

export const digestOf = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest();

export class KeyStore {
  private readonly entries: Entry[];

  constructor(
    apiKeys: readonly ApiKeyEntry[],
    deviceKeys: readonly DeviceKeyEntry[],
    private readonly managed?: ManagedKeyLookup,
  ) {
    this.entries = [
      ...apiKeys.map((k) => ({ digest: digestOf(k.key), principal: apiPrincipal(k) })),
      ...deviceKeys.map((k) => ({ digest: digestOf(k.key), principal: devicePrincipal(k) })),
    ];
  }

  /** Who the presented key belongs to: a settings key, else a managed one; null for no key. */
  async resolve(presented: string): Promise<Principal | null> {
    return this.resolveDigest(digestOf(presented));
  }

  /** Who the key with this digest belongs to (a key kept only as its digest, e.g. an editor session's). */
  async resolveDigest(digest: Buffer): Promise<Principal | null> {
    if (digest.length !== 32) return null;
    return this.settingsKey(digest) ?? (this.managed ? this.managed.byDigest(digest) : null);
  }

  /** Is this digest a settings key's? (A new managed key must not be one.) */
  isSettingsKey(presented: string): boolean {
    return this.settingsKey(digestOf(presented)) !== null;
  }

  /** The settings' keys as the key list shows them (read-only there). */
  settingsKeys(): SettingsKeyInfo[] {
    return this.entries.map(({ principal: p }) =>
      p.kind === "api"
        ? { name: p.name, kind: "api", roles: p.roles, device_type: null, sensor_id: null }
        : { name: p.name, kind: "device", roles: [], device_type: p.device_type, sensor_id: p.sensor_id },
    );
  }

  private settingsKey(digest: Buffer): Principal | null {
    let found: Principal | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, digest) && found === null) found = entry.principal;
    }
    return found;
  }

  get size(): number {
    return this.entries.length;
  }
}

export function apiPrincipal(k: Pick<ApiKeyEntry, "name" | "permissions">): Principal {
  const roles = k.permissions.filter(isRoleName) as RoleName[];
  return {
    kind: "api",
    name: k.name,
    roles,
    isAdmin: roles.includes("admin"),
    patterns: expandPermissions(k.permissions),
  };
}

export function devicePrincipal(k: Pick<DeviceKeyEntry, "name" | "sensor_id" | "device_type" | "permissions">): Principal {
  const permissions = k.permissions.length > 0 ? k.permissions : (DEFAULT_DEVICE_PERMISSIONS[k.device_type] ?? []);
  return {
    kind: "device",
    name: k.name ?? k.sensor_id,
    sensor_id: k.sensor_id,
    device_type: k.device_type,
    patterns: expandPermissions(permissions),
  };
}

const adminOnly = (subject: string): boolean => {
  const lower = subject.toLowerCase();
  return ADMIN_ONLY_PATTERNS.some((pattern) => fnmatch(lower, pattern.toLowerCase()));
};

/** Does this caller's permission set allow `METHOD /path`? Admin-only routes (roles.ts) need the admin role. */
export const isAllowed = (principal: Principal, method: string, path: string): boolean => {
  const subject = `${method.toUpperCase()} ${path}`;
  if (!(principal.kind === "api" && principal.isAdmin) && adminOnly(subject)) return false;
  return principal.patterns.some((pattern) => fnmatch(subject, pattern));
};
