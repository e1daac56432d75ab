/**
 * An editor session ends with the key that opened it. Node-RED names a session only by its user
 * ("admin" or "caregiver"), so a revoked or rotated key would leave the sessions it opened valid
 * for their week. The login request therefore labels the session it creates with the digest of
 * the key typed as the password; every editor request made with a session, and every revocation
 * (on each instance), checks that key still opens the editor as that user, and ends the session
 * when not, its comms socket included. A session without a label (one opened before careflow
 * labelled them) cannot be checked and is ended the same way: its user logs in once more.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { digestOf, type KeyStore } from "../auth/key-store";
import { userOfPrincipal } from "./admin-auth";

/** A Node-RED session as its token store keeps it, with careflow's label. */
interface RedSession {
  user: string;
  expires?: number;
  /** Hex SHA-256 of the key that logged in (never the key). */
  careflow_key?: string;
}

/** Node-RED's own session store (the one its Bearer strategy and comms read), loaded with Node-RED. */
interface RedTokens {
  get(token: string): Promise<RedSession | null | undefined>;
}
let tokens: RedTokens | undefined;
export const redTokens = (): RedTokens => (tokens ??= require("@node-red/editor-api/lib/auth/tokens") as RedTokens);

const loggingIn = new AsyncLocalStorage<{ user: string; digest: string }>();

/** Runs the rest of a login request (its password checked) so the session it creates is labelled with its key. */
export function duringLogin(user: string, key: string, rest: () => void): void {
  loggingIn.run({ user, digest: digestOf(key).toString("hex") }, rest);
}

/**
 * Called with Node-RED's sessions as it saves them: in a login request, the session just
 * created (its user's newest without a label) gets the digest of the key that logged in.
 */
export function labelNewSession(sessions: Record<string, unknown>): void {
  const login = loggingIn.getStore();
  if (!login) return;
  let newest: RedSession | null = null;
  for (const value of Object.values(sessions)) {
    const s = value as RedSession;
    if (s?.user !== login.user || s.careflow_key !== undefined) continue;
    if (!newest || (s.expires ?? 0) > (newest.expires ?? 0)) newest = s;
  }
  if (newest) newest.careflow_key = login.digest;
}

/** Does the key that opened this session still open the editor as its user? */
export async function sessionKeyHolds(keys: KeyStore, session: RedSession): Promise<boolean> {
  if (typeof session.careflow_key !== "string" || !/^[0-9a-f]{64}$/.test(session.careflow_key)) return false;
  const user = userOfPrincipal(await keys.resolveDigest(Buffer.from(session.careflow_key, "hex")));
  return user?.username === session.user;
}

/**
 * Sessions ended here (digests of their tokens, the newest kept): the editor they were open in
 * keeps asking with them, and is told its session ended rather than counted as guessing keys.
 * Node-RED's sessions live in this process too, so this is the process's, not an app's.
 */
const ended = new Set<string>();
const ENDED_KEPT = 1000;
const tokenDigest = (token: string): string => digestOf(token).toString("hex");

/**
 * Ends a session as Node-RED ends an expired one: its comms socket is told `auth: fail` and
 * closed, the session dropped and the sessions saved (an expired session read is expired).
 */
export async function endSession(token: string): Promise<void> {
  const session = await redTokens().get(token);
  if (!session) return;
  ended.add(tokenDigest(token));
  if (ended.size > ENDED_KEPT) ended.delete(ended.values().next().value as string);
  session.expires = 0;
  await redTokens().get(token);
}

/** The session a token names, or null; a session whose key no longer holds (now or earlier) is ended. */
export async function liveSession(keys: KeyStore, token: string): Promise<{ user: string } | "ended" | null> {
  const session = await redTokens()
    .get(token)
    .catch(() => null);
  if (!session) return ended.has(tokenDigest(token)) ? "ended" : null;
  if (await sessionKeyHolds(keys, session)) return { user: session.user };
  await endSession(token);
  return "ended";
}

/** Ends every stored session whose key no longer holds (after a key was revoked or rotated). */
export async function endSessionsOfGoneKeys(keys: KeyStore, stored: () => Promise<Record<string, unknown>>): Promise<number> {
  let ended = 0;
  for (const token of Object.keys(await stored())) {
    if ((await liveSession(keys, token)) === "ended") ended++;
  }
  return ended;
}
