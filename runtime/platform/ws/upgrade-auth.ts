/**
 * The key of a WebSocket upgrade (`/ws`, `/ws/pipeline`): one key per upgrade, never a list
 * to try. Browsers cannot set headers, so the key is a value of `Sec-WebSocket-Protocol`
 * (`new WebSocket(url, [key])`), optionally beside the fixed name `careflow`
 * (`["careflow", key]`, which is then the protocol echoed instead of the key). More than one
 * other value is refused and counted as a wrong key, as is a wrong one, in the throttle REST
 * uses; a blocked address was refused before this (`blocked-address.ts`).
 */
import type { IncomingMessage } from "node:http";
import type { FailureThrottle } from "../auth/failure-throttle";
import type { KeyStore } from "../auth/key-store";
import type { Principal } from "../auth/principal";
import { peerAddress } from "../auth/blocked-address";

/** The protocol name a client may offer beside its key; accepted instead of echoing the key. */
export const CAREFLOW_PROTOCOL = "careflow";

export type UpgradeAuth = { ok: true; principal: Principal; protocol: string | null } | { ok: false; status: 401; detail: string };

const offeredProtocols = (req: IncomingMessage): string[] =>
  String(req.headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** The protocol to accept of those offered, once `authenticateUpgrade` has said which. */
export const chosenProtocol = (req: IncomingMessage): string | null => (req as IncomingMessage & { careflowProtocol?: string | null }).careflowProtocol ?? null;

/**
 * Resolves the upgrade's one key: a protocol value other than `careflow`, else (`allowQuery`)
 * `?api_key=`. `mayUse` says whether a known key may open this socket (a known key that may
 * not is refused 401 and not counted: it was no guess).
 */
export async function authenticateUpgrade(
  keys: KeyStore,
  throttle: FailureThrottle,
  req: IncomingMessage,
  opts: { allowQuery: boolean; mayUse: (p: Principal) => boolean; hint: string },
): Promise<UpgradeAuth> {
  const client = peerAddress(req);
  const refuse = (detail: string): UpgradeAuth => {
    throttle.fail(client);
    return { ok: false, status: 401, detail };
  };
  const offered = offeredProtocols(req);
  const candidates = offered.filter((p) => p !== CAREFLOW_PROTOCOL);
  if (candidates.length > 1) return refuse(`Send one key per connection (${candidates.length} protocol values offered)`);
  const named = offered.includes(CAREFLOW_PROTOCOL) ? CAREFLOW_PROTOCOL : null;
  let key: string | null = candidates[0] ?? null;
  if (key === null && opts.allowQuery) key = new URL(req.url ?? "/", "http://localhost").searchParams.get("api_key") || null;
  if (key === null) return { ok: false, status: 401, detail: opts.hint };
  const principal = await keys.resolve(key);
  if (!principal) return refuse("Invalid API key");
  if (!opts.mayUse(principal)) return { ok: false, status: 401, detail: `This key may not open ${new URL(req.url ?? "/", "http://localhost").pathname}` };
  // The key offered as the protocol is echoed (the browser requires one offered value back), unless `careflow` was offered too.
  const protocol = named ?? (candidates[0] === key ? key : null);
  (req as IncomingMessage & { careflowProtocol?: string | null }).careflowProtocol = protocol;
  return { ok: true, principal, protocol };
}

/** Writes a refused upgrade's answer on the raw socket. */
export function refusalResponse(r: Extract<UpgradeAuth, { ok: false }>): string {
  const body = JSON.stringify({ detail: r.detail });
  return `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}
