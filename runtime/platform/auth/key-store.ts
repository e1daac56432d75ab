/**
 * The keys this service accepts and who they belong to.
 *
 * Lookup is constant-time in the presented key: it is hashed once and compared with
 * `timingSafeEqual` against the digest of every configured key, without an early exit,
 * so response timing reveals neither a prefix nor which entry matched.
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

const digestOf = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest();

export class KeyStore {
  private readonly entries: Entry[];

  constructor(apiKeys: readonly ApiKeyEntry[], deviceKeys: readonly DeviceKeyEntry[]) {
    this.entries = [
      ...apiKeys.map((k) => ({ digest: digestOf(k.key), principal: apiPrincipal(k) })),
      ...deviceKeys.map((k) => ({ digest: digestOf(k.key), principal: devicePrincipal(k) })),
    ];
  }

  resolve(presented: string): Principal | null {
    const digest = digestOf(presented);
    let found: Principal | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, digest) && found === null) found = entry.principal;
    }
    return found;
  }

  /** True when `presented` is a key whose permissions include the admin role. */
  isAdminKey(presented: string): boolean {
    const p = this.resolve(presented);
    return p?.kind === "api" && p.isAdmin;
  }

  get size(): number {
    return this.entries.length;
  }
}

function apiPrincipal(k: ApiKeyEntry): Principal {
  const roles = k.permissions.filter(isRoleName) as RoleName[];
  return {
    kind: "api",
    name: k.name,
    roles,
    isAdmin: roles.includes("admin"),
    patterns: expandPermissions(k.permissions),
  };
}

function devicePrincipal(k: DeviceKeyEntry): Principal {
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
