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

export function adminAuthSettings(keys: () => KeyStore): Record<string, unknown> {
  return {
    type: "credentials",
    users: async (username: string) => (username === ADMIN.username ? ADMIN : null),
    authenticate: async (username: string, password: string) =>
      username === ADMIN.username && typeof password === "string" && keys().isAdminKey(password) ? ADMIN : null,
    tokens: async (token: string) => (typeof token === "string" && keys().isAdminKey(token) ? ADMIN : null),
  };
}
