/**
 * "Test connection" of the hub (issue 43 §1): one WebSocket to the address with the token, as
 * the client makes (auth handshake, `get_states`, the area registry), and what it found: the
 * entities counted by domain and the areas. Nothing is kept; the running link is not touched.
 * A failure names the field to change: `url` for an address that does not answer as a hub,
 * `token` for a token the hub refuses.
 */
import WebSocket from "ws";
import { isHubState, type HubArea, type HubMessage } from "./hub-protocol";

export interface HubFound {
  ok: true;
  /** The hub's version, as it says in its greeting. */
  version: string | null;
  entities: number;
  /** `{ "binary_sensor": 4, "light": 2 }`, the most first. */
  by_domain: Record<string, number>;
  areas: string[];
}

export interface HubNotFound {
  ok: false;
  field: "url" | "token";
  message: string;
}

export const PROBE_TIMEOUT_MS = 5_000;

/** The hub's WebSocket address of its base address (`http://host:8123` → `ws://host:8123/api/websocket`). */
export function hubSocketUrl(url: string): string {
  const u = new URL("/api/websocket", url);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  return u.toString();
}

const countByDomain = (ids: readonly string[]): Record<string, number> => {
  const counts = new Map<string, number>();
  for (const id of ids) {
    const domain = id.split(".")[0];
    counts.set(domain, (counts.get(domain) ?? 0) + 1);
  }
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
};

export function probeHub(url: string, token: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<HubFound | HubNotFound> {
  return new Promise((resolve) => {
    let version: string | null = null;
    let authed = false;
    let states: string[] | null = null;
    let areas: string[] | null = null;
    let settled = false;
    const ws = new WebSocket(hubSocketUrl(url), { handshakeTimeout: timeoutMs });
    const finish = (answer: HubFound | HubNotFound) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.removeAllListeners("close");
      ws.on("error", () => undefined);
      ws.terminate();
      resolve(answer);
    };
    const timer = setTimeout(() => finish({ ok: false, field: "url", message: `the hub at ${url} did not answer within ${timeoutMs / 1000} s` }), timeoutMs);
    ws.on("error", (err) => finish({ ok: false, field: "url", message: `nothing answered as a hub at ${url} (${err.message})` }));
    ws.on("close", () => finish({ ok: false, field: authed ? "url" : "token", message: "the hub closed the connection before answering" }));
    ws.on("message", (data) => {
      let msg: HubMessage;
      try {
        msg = JSON.parse(String(data)) as HubMessage;
      } catch {
        return finish({ ok: false, field: "url", message: `${url} answered, but not as a home hub` });
      }
      if (msg.type === "auth_required") {
        version = msg.ha_version ?? null;
        ws.send(JSON.stringify({ type: "auth", access_token: token }));
      } else if (msg.type === "auth_invalid") {
        finish({ ok: false, field: "token", message: "the hub refused this token: make a new long-lived access token in the hub's profile page" });
      } else if (msg.type === "auth_ok") {
        authed = true;
        ws.send(JSON.stringify({ id: 1, type: "get_states" }));
        ws.send(JSON.stringify({ id: 2, type: "config/area_registry/list" }));
      } else if (msg.type === "result" && !msg.success) {
        finish({
          ok: false,
          field: "token",
          message: `the hub refused to list its ${msg.id === 1 ? "entities" : "areas"}: ${msg.error?.message ?? "no reason given"} (an administrator's token is needed)`,
        });
      } else if (msg.type === "result") {
        if (msg.id === 1) states = (Array.isArray(msg.result) ? msg.result : []).filter(isHubState).map((s) => s.entity_id);
        if (msg.id === 2) areas = (Array.isArray(msg.result) ? (msg.result as HubArea[]) : []).map((a) => String(a.name));
        if (states && areas) finish({ ok: true, version, entities: states.length, by_domain: countByDomain(states), areas });
      }
    });
  });
}
