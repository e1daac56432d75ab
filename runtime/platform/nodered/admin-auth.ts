/**
 * Editor and admin API login through our key store: user `admin` with an admin key as the
 * password (everything), or user `caregiver` with a caregiver key (read-only: flows, runs
 * and help, no deploy), matching the caregiver role of the REST API. On the admin API the
 * same keys work as `Authorization: Bearer <key>`, once `editor-bearer.ts` has checked the
 * key for that request (and counted a wrong one): Node-RED asks `tokens` only inside such a
 * request, so its comms socket's auth packets are never a way to try keys unthrottled.
 * Node-RED's own session tokens still work after a login.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { KeyStore } from "../auth/key-store";
import type { Principal } from "../auth/principal";

export interface RedUser {
  username: string;
  permissions: string;
}

const USERS: Record<string, RedUser> = {
  admin: { username: "admin", permissions: "*" },
  caregiver: { username: "caregiver", permissions: "read" },
};

/** What the login page says to type. */
export const LOGIN_MESSAGE = "Log in as admin with an admin API key, or as caregiver with a caregiver API key to read rules and runs.";

/** The editor user a key is, as Bearer token or password: admin before caregiver. */
export async function userOfKey(keys: KeyStore, key: unknown): Promise<RedUser | null> {
  return typeof key === "string" ? userOfPrincipal(await keys.resolve(key)) : null;
}

/** The editor user a key's holder is, if any. */
export function userOfPrincipal(p: Principal | null): RedUser | null {
  if (p?.kind !== "api") return null;
  if (p.isAdmin) return USERS.admin;
  return p.roles.includes("caregiver") ? USERS.caregiver : null;
}

/** The one login check, for Node-RED's adminAuth and the login throttle in front of it. */
export async function editorLogin(keys: KeyStore, username: string, password: string): Promise<RedUser | null> {
  const user = await userOfKey(keys, password);
  return user && user.username === username ? user : null;
}

export function adminAuthSettings(keys: () => KeyStore): Record<string, unknown> {
  return {
    type: "credentials",
    users: async (username: string) => USERS[username] ?? null,
    authenticate: async (username: string, password: string) => editorLogin(keys(), username, password),
    tokens: async (token: string) => (checkedBearer.getStore() === token ? userOfKey(keys(), token) : null),
  };
}

/** The Bearer key the editor gate checked for the request running now. */
const checkedBearer = new AsyncLocalStorage<string>();

/** Runs the rest of a request with its Bearer key accepted as checked. */
export const withCheckedBearer = (key: string, rest: () => void): void => checkedBearer.run(key, rest);
