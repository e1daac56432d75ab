/**
 * Editor and admin API login through our key store: user `admin` with an admin key as the
 * password, or `Authorization: Bearer <admin key>` on the admin API. Any other key is
 * refused. Node-RED's own session tokens still work after a login.
 */
import type { KeyStore } from "../auth/key-store";

interface RedUser {
  username: string;
  permissions: string;
}

const ADMIN: RedUser = { username: "admin", permissions: "*" };

/** The one login check, for Node-RED's adminAuth and the login throttle in front of it. */
export const isAdminLogin = (keys: KeyStore, username: string, password: string): boolean =>
  username === ADMIN.username && typeof password === "string" && keys.isAdminKey(password);

export function adminAuthSettings(keys: () => KeyStore): Record<string, unknown> {
  return {
    type: "credentials",
    users: async (username: string) => (username === ADMIN.username ? ADMIN : null),
    authenticate: async (username: string, password: string) => (isAdminLogin(keys(), username, password) ? ADMIN : null),
    tokens: async (token: string) => (typeof token === "string" && keys().isAdminKey(token) ? ADMIN : null),
  };
}
