/**
 * The one-time set-up link `npm start` prints for a household with nobody and no room yet
 * (issue 43 §3, docs/household-page.md). Its token is a managed admin key named
 * `SETUP_KEY_NAME`: stored as a digest only, audited, listed under Access keys, and revoked by
 * the page when the family finishes the set-up (DELETE /api/v1/admin/keys/:id), after which the
 * link is refused. A restart before then rotates it (its secret is never kept) and prints the
 * new link; once the set-up is finished and the household is no longer empty, nothing is printed.
 */
import type { AppContext } from "../context";
import type { ApiPrincipal } from "../../platform/auth/principal";
import { createKey, listKeys, rotateKey } from "../keys/keys.service";
import { isStoreEmpty } from "../demo/demo-household";

export const SETUP_KEY_NAME = "first-start set-up link";

const STARTER: ApiPrincipal = { kind: "api", name: "careflow first start", patterns: [], roles: ["admin"], isAdmin: true };

/** The set-up token to print, or null when the household needs none. */
export async function firstStartToken(ctx: AppContext): Promise<string | null> {
  const open = (await listKeys(ctx)).find((k) => k.source === "managed" && !k.revoked && k.name === SETUP_KEY_NAME);
  if (open && open.id !== null) return (await rotateKey(ctx, STARTER, open.id)).key;
  if (!(await isStoreEmpty(ctx.db))) return null;
  return (await createKey(ctx, STARTER, { name: SETUP_KEY_NAME, kind: "api", role: "admin" })).key;
}
