/**
 * A client of the home hub (Home Assistant): its WebSocket API for live state (auth handshake,
 * `get_states`, `subscribe_events` for `state_changed`, `call_service`, the area, entity and
 * device registries) and its REST API for what REST does more simply (creating a helper's
 * state, polling).
 *
 * Written on `ws` rather than `home-assistant-js-websocket`: that library expects a browser
 * WebSocket global, which Node 20 lacks, and leaves reconnect-and-resync to its caller anyway
 * (docs/decisions.md).
 *
 * It keeps every entity's state. On each (re)connect it subscribes to `state_changed` first,
 * then reads all states and reports each one that differs from what it held, so a change made
 * while it was disconnected is not missed. Reconnects back off from 0.5 s to 4 s. While the
 * WebSocket is down it polls `GET /api/states` every `hub.poll_seconds` (the spec's 30 s
 * polling, on the app's clock) and reports changes the same way.
 */
import WebSocket from "ws";
import type { Clock } from "../../platform/core/clock";
import type { Logger } from "../../platform/core/logger";
import { HubError, isHubState, type HubArea, type HubDevice, type HubEntityEntry, type HubMessage, type HubState, type HubStateChange } from "./hub-protocol";

/**
 * Between reconnection tries: 0.5 s, doubling, at most 4 s, so a hub that comes back is in step
 * again within 5 s (issue 15's figure; bench/hub.bench.ts measured 15 s waits with a 30 s cap),
 * for one refused connect every 4 s while it is down.
 */
export const RECONNECT_BACKOFF: Readonly<{ initialMs: number; maxMs: number }> = { initialMs: 500, maxMs: 4_000 };

export interface HubClientOptions {
  /** `http://host:8123` (the WebSocket is at `/api/websocket` on the same host). */
  url: string;
  token: string;
  clock: Clock;
  log: Logger;
  pollSeconds: number;
  /** Per request (a command or a REST call). */
  timeoutMs?: number;
  backoff?: { initialMs: number; maxMs: number };
}

type ChangeListener = (change: HubStateChange) => void;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export class HubClient {
  private ws: WebSocket | null = null;
  private authed = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly cache = new Map<string, HubState>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly connectedWaiters = new Set<() => void>();
  private stopped = true;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private cancelPoll: (() => void) | null = null;
  private polling: Promise<void> | null = null;
  /** Resolves when the first full read of the states is done (by WebSocket or poll). */
  private synced = false;

  constructor(private opts: HubClientOptions) {}

  get connected(): boolean {
    return this.authed && this.ws?.readyState === WebSocket.OPEN;
  }

  /** True once all states have been read at least once. */
  get ready(): boolean {
    return this.synced;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
    this.schedulePoll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.cancelPoll?.();
    this.cancelPoll = null;
    const ws = this.ws;
    this.ws = null;
    this.authed = false;
    if (ws) ws.terminate();
    this.failPending(new HubError("stopped", "the hub client stopped"));
    await this.polling?.catch(() => undefined);
  }

  /**
   * The hub's address or token changed (the Household page's Hub form): a live connection is
   * dropped and the next one uses them. Listeners and the cache stay: the new hub's states,
   * read on connecting, replace the cache and report what differs.
   */
  reconfigure(url: string, token: string): void {
    this.opts = { ...this.opts, url, token };
    this.attempt = 0;
    const ws = this.ws;
    if (ws) {
      this.ws = null;
      this.authed = false;
      ws.terminate();
      this.failPending(new HubError("disconnected", "the hub's address or token changed"));
    }
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (!this.stopped) this.connect();
  }

  /** The address the client connects to. */
  get url(): string {
    return this.opts.url;
  }

  onStateChanged(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  state(entityId: string): HubState | undefined {
    return this.cache.get(entityId);
  }

  states(): HubState[] {
    return [...this.cache.values()];
  }

  /** Resolves once connected (or after `timeoutMs`, false). */
  whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.connected) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.connectedWaiters.delete(done);
        resolve(this.connected);
      };
      const timer = setTimeout(done, timeoutMs);
      this.connectedWaiters.add(done);
    });
  }

  // -------------------------------------------------------------------------------------
  // Commands

  async callService(domain: string, service: string, data: Record<string, unknown> = {}, entityId?: string): Promise<unknown> {
    const target = entityId ? { entity_id: entityId } : undefined;
    if (this.connected) return this.command({ type: "call_service", domain, service, service_data: data, ...(target ? { target } : {}) });
    // The WebSocket is down: REST takes the same call.
    return this.rest("POST", `/api/services/${encodeURIComponent(domain)}/${encodeURIComponent(service)}`, { ...data, ...(target ?? {}) });
  }

  areas(): Promise<HubArea[]> {
    return this.command({ type: "config/area_registry/list" }) as Promise<HubArea[]>;
  }

  entityRegistry(): Promise<HubEntityEntry[]> {
    return this.command({ type: "config/entity_registry/list" }) as Promise<HubEntityEntry[]>;
  }

  deviceRegistry(): Promise<HubDevice[]> {
    return this.command({ type: "config/device_registry/list" }) as Promise<HubDevice[]>;
  }

  /** Creates an `input_text` helper (the hub's own registry, so it survives the hub's restart). */
  createInputText(name: string, opts: { max?: number; initial?: string } = {}): Promise<unknown> {
    return this.command({ type: "input_text/create", name, max: opts.max ?? 255, ...(opts.initial !== undefined ? { initial: opts.initial } : {}) });
  }

  /**
   * Sets an entity's state (and attributes) on the hub: the REST API's `POST /api/states/…`, the
   * only way to set a state the hub's WebSocket API has none for. The entity exists until the
   * hub restarts; the next write makes it again.
   */
  setState(entityId: string, state: string, attributes: Record<string, unknown> = {}): Promise<unknown> {
    return this.rest("POST", `/api/states/${encodeURIComponent(entityId)}`, { state, attributes });
  }

  /** Sends a WebSocket command and resolves with its result. */
  command(payload: Record<string, unknown>): Promise<unknown> {
    const ws = this.ws;
    if (!ws || !this.connected) return Promise.reject(new HubError("not_connected", "the hub is not connected"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new HubError("timeout", `the hub did not answer '${String(payload.type)}' in ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify({ id, ...payload }), (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new HubError("send_failed", err.message));
      });
    });
  }

  /** A REST call with the token; JSON in and out. */
  async rest(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(new URL(path, this.opts.url), {
      method,
      headers: { authorization: `Bearer ${this.opts.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    }).catch((err: unknown) => {
      throw new HubError("unreachable", `the hub at ${this.opts.url} did not answer: ${err instanceof Error ? err.message : String(err)}`);
    });
    const text = await res.text();
    if (!res.ok)
      throw new HubError(
        res.status === 401 ? "unauthorized" : res.status === 404 ? "not_found" : "http_error",
        `hub ${method} ${path}: ${res.status} ${text.slice(0, 200)}`,
      );
    return text ? (JSON.parse(text) as unknown) : null;
  }

  // -------------------------------------------------------------------------------------
  // Connection

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private wsUrl(): string {
    const u = new URL("/api/websocket", this.opts.url);
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    return u.toString();
  }

  private connect(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.wsUrl(), { handshakeTimeout: this.timeoutMs });
    this.ws = ws;
    this.authed = false;
    ws.on("message", (data) => this.onMessage(ws, String(data)));
    ws.on("error", (err) => this.opts.log.debug({ err: err.message }, "hub socket error"));
    ws.on("close", () => this.onClose(ws));
  }

  private onClose(ws: WebSocket): void {
    if (this.ws !== ws) return;
    const wasConnected = this.authed;
    this.ws = null;
    this.authed = false;
    this.failPending(new HubError("disconnected", "the hub connection closed"));
    if (this.stopped) return;
    if (wasConnected) this.opts.log.warn({ url: this.opts.url }, "hub connection lost: reconnecting, polling meanwhile");
    const { initialMs, maxMs } = this.opts.backoff ?? RECONNECT_BACKOFF;
    const delay = Math.min(maxMs, initialMs * 2 ** Math.min(this.attempt++, 10));
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
    this.reconnectTimer.unref?.();
  }

  private onMessage(ws: WebSocket, text: string): void {
    let msg: HubMessage;
    try {
      msg = JSON.parse(text) as HubMessage;
    } catch {
      this.opts.log.warn({ text: text.slice(0, 200) }, "the hub sent a message that is not JSON");
      return;
    }
    switch (msg.type) {
      case "auth_required":
        ws.send(JSON.stringify({ type: "auth", access_token: this.opts.token }));
        return;
      case "auth_invalid":
        this.opts.log.error({ url: this.opts.url, message: msg.message }, "the hub refused careflow's token (hub.token or CAREFLOW_HUB_TOKEN)");
        ws.close();
        return;
      case "auth_ok":
        this.authed = true;
        this.attempt = 0;
        void this.resync().catch((err: unknown) => this.opts.log.warn({ err: String(err) }, "reading the hub's states after connecting failed"));
        return;
      case "result": {
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        clearTimeout(p.timer);
        if (msg.success) p.resolve(msg.result ?? null);
        else p.reject(new HubError(msg.error?.code ?? "error", msg.error?.message ?? "the hub refused the command"));
        return;
      }
      case "event":
        if (msg.event.event_type === "state_changed") this.apply(msg.event.data as HubStateChange);
        return;
      default:
        return;
    }
  }

  /** Subscribes to changes, then reads every state and reports what differs from the cache. */
  private async resync(): Promise<void> {
    await this.command({ type: "subscribe_events", event_type: "state_changed" });
    const states = (await this.command({ type: "get_states" })) as unknown[];
    this.replaceAll(states.filter(isHubState));
    this.opts.log.info({ url: this.opts.url, entities: this.cache.size }, "hub connected");
    for (const wake of [...this.connectedWaiters]) wake();
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    const at = this.opts.clock.now() + this.opts.pollSeconds * 1000;
    this.cancelPoll = this.opts.clock.at(at, () => {
      this.cancelPoll = null;
      if (!this.connected && !this.polling) {
        this.polling = this.poll().finally(() => (this.polling = null));
      }
      this.schedulePoll();
    });
  }

  /** The fallback while the WebSocket is down: all states over REST. */
  async poll(): Promise<void> {
    try {
      const states = (await this.rest("GET", "/api/states")) as unknown[];
      this.replaceAll(states.filter(isHubState));
    } catch (err) {
      this.opts.log.debug({ err: String(err) }, "polling the hub failed");
    }
  }

  private replaceAll(states: HubState[]): void {
    const seen = new Set<string>();
    for (const s of states) {
      seen.add(s.entity_id);
      const old = this.cache.get(s.entity_id) ?? null;
      if (!old || old.state !== s.state || old.last_updated !== s.last_updated) this.apply({ entity_id: s.entity_id, old_state: old, new_state: s });
    }
    for (const [id, old] of [...this.cache]) if (!seen.has(id)) this.apply({ entity_id: id, old_state: old, new_state: null });
    this.synced = true;
  }

  private apply(change: HubStateChange): void {
    if (!change || typeof change.entity_id !== "string") return;
    if (change.new_state && isHubState(change.new_state)) this.cache.set(change.entity_id, change.new_state);
    else this.cache.delete(change.entity_id);
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        this.opts.log.error({ err, entity_id: change.entity_id }, "a hub state listener failed");
      }
    }
  }

  private failPending(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
      this.pending.delete(id);
    }
  }
}
