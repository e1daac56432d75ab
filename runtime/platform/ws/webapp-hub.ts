/**
 * `WS /ws`: the web app's socket. Clients receive popups, interactive prompts and alert
 * updates as JSON frames and may answer prompts. A client authenticates with one key as the
 * WebSocket subprotocol or the `api_key` query parameter (`upgrade-auth.ts`: a wrong one is
 * counted by the failure throttle); API keys of any role and
 * terminal or display device keys may connect and receive. A frame that acts (answers a
 * prompt) needs the permission of its REST twin, checked here for every frame type, so a
 * display key can watch prompts but not answer them. Connections are limited in total and
 * per key (`websocket` settings); a newcomer over a limit is refused, nobody is evicted.
 * A web app names its screen with `?tablet=<its own id>`, so two tablets sharing a key are
 * told apart (a popup put away on one is not put away on the other).
 * Each client is pinged every 30 s (`websocket.ping_seconds`) of real time while any is connected; its pong (which a
 * browser sends by itself) or any frame is when it was last seen (`screens()`, the Household
 * page). A client that answered nothing between two pings is cut off: a tablet gone from the
 * Wi-Fi without closing its socket would otherwise count as a screen that shows popups, and no
 * alert would fall back to the family's chat for hours (until TCP gave up). Real time, not the
 * household clock: silence on the network is measured in the network's seconds, and a test's
 * manual clock moving an hour at once cuts nobody off.
 * With several instances (docs/cluster.md "Events") every broadcast also goes to the clients
 * of the other instances, through the peers the cluster wiring gives it.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { FailureThrottle } from "../auth/failure-throttle";
import { isAllowed, type KeyStore } from "../auth/key-store";
import type { Principal } from "../auth/principal";
import type { Clock } from "../core/clock";
import type { Logger } from "../core/logger";
import { ConnectionLimits, type ConnectionLimitSettings } from "./connection-limits";
import { authenticateUpgrade, chosenProtocol, refusalResponse } from "./upgrade-auth";

/** The close code of a socket whose key was revoked or rotated (4000–4999: the application's own). */
export const KEY_REVOKED_CLOSE = 4001;

export const WEBAPP_PATH = "/ws";
/** As JSON bodies: a bigger frame closes the connection (1009). Audio chunks are far smaller. */
const MAX_FRAME_BYTES = 1 << 20;
/** A tablet's id as the web app makes it (random, URL-safe); anything else is taken as none. */
const TABLET_ID = /^[A-Za-z0-9_-]{8,64}$/;

export interface WebAppFrame {
  type: string;
  [k: string]: unknown;
}

export interface WebAppClient {
  principal: Principal;
  /** The screen's own id (`?tablet=`), null when it sent none or a malformed one. */
  tablet: string | null;
  send(frame: WebAppFrame): void;
}

/** A client as the Household page lists it: who, which screen, since when, last heard from (ms since the epoch). */
export interface WebAppScreen {
  principal: Principal;
  tablet: string | null;
  connected_at: number;
  last_seen_at: number;
}

type Handler = (message: WebAppFrame, client: WebAppClient) => void | Promise<void>;

/** The REST route a frame type stands for: its caller needs the same permission. */
export interface RestTwin {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
}

/** The other instances' clients (runtime/app/cluster-fan-out.ts); absent: one instance. */
export interface WebAppPeers {
  /** Hands a broadcast to the other instances (`twin`: only to clients allowed it; binary as base64 text). */
  send(frame: WebAppFrame, twin: RestTwin | null): void;
  sendBinary(data: Buffer): void;
  /** How many clients the other instances have, as they last said. */
  clients(): number;
}

const mayConnect = (p: Principal): boolean => p.kind === "api" || p.device_type === "terminal" || p.device_type === "display";

export class WebAppHub {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    // The one protocol authenticateUpgrade chose (the key, or `careflow`): no key is tried here.
    handleProtocols: (_protocols, req) => chosenProtocol(req) ?? false,
  });
  private readonly clients = new Map<WebSocket, WebAppClient>();
  /** Per socket, when it connected and when it was last heard from. */
  private readonly seen = new Map<WebSocket, { connected_at: number; last_seen_at: number }>();
  private heartbeat: NodeJS.Timeout | null = null;
  /** The sockets heard from since the last ping. */
  private readonly answered = new Set<WebSocket>();
  private readonly handlers = new Map<string, { handler: Handler; twin: RestTwin | null }>();
  /** Per client, the broadcasts it no longer wants (a popup its screen put away). */
  private readonly unwanted = new Map<WebAppClient, (frame: WebAppFrame) => boolean>();
  private readonly limits: ConnectionLimits;
  private readonly greeters: Array<(client: WebAppClient) => void | Promise<unknown>> = [];
  /** Greetings that read the store before they send (open alerts, open prompts), until they have sent. */
  private readonly greeting = new Set<Promise<unknown>>();
  private readonly leavers: Array<(client: WebAppClient) => void> = [];
  private peers: WebAppPeers | null = null;

  constructor(
    private readonly keys: () => KeyStore,
    private readonly log: Logger,
    private readonly socketSettings: () => ConnectionLimitSettings & { ping_seconds: number },
    private readonly clock: Clock,
  ) {
    this.limits = new ConnectionLimits(socketSettings);
  }

  /** Every broadcast from now on also goes to the other instances' clients. */
  linkPeers(peers: WebAppPeers): void {
    this.peers = peers;
  }

  /** Send a frame to every connected client (of every instance); returns how many it was sent to. */
  broadcast(frame: WebAppFrame): number {
    this.peers?.send(frame, null);
    return this.deliver(frame, null) + (this.peers?.clients() ?? 0);
  }

  /**
   * Send a frame only to clients whose key may read its REST twin (a live tracking frame goes
   * to keys that may `GET /api/v1/cts/cameras`, never to the senior's tablet); returns how many
   * of this instance's clients it was sent to (the other instances' keys are not known here).
   */
  broadcastTo(twin: RestTwin, frame: WebAppFrame): number {
    this.peers?.send(frame, twin);
    return this.deliver(frame, twin);
  }

  /** Send a binary frame (audio) to every connected client; returns how many it was sent to. */
  broadcastBinary(data: Buffer): number {
    this.peers?.sendBinary(data);
    return this.deliverBinary(data) + (this.peers?.clients() ?? 0);
  }

  /** A frame broadcast (here or on another instance) to this instance's clients: all, or those allowed `twin`. */
  deliver(frame: WebAppFrame, twin: RestTwin | null): number {
    const text = JSON.stringify(frame);
    let n = 0;
    for (const [ws, client] of this.clients) {
      if (this.unwanted.get(client)?.(frame)) continue;
      if (ws.readyState === ws.OPEN && (twin === null || isAllowed(client.principal, twin.method, twin.path))) {
        ws.send(text);
        n++;
      }
    }
    return n;
  }

  /** A binary frame to this instance's clients. */
  deliverBinary(data: Buffer): number {
    let n = 0;
    for (const ws of this.clients.keys()) {
      if (ws.readyState === ws.OPEN) {
        ws.send(data, { binary: true });
        n++;
      }
    }
    return n;
  }

  /** Called with each client as it connects, e.g. to send it a welcome frame; a promise: sent once it settles. */
  onConnect(greet: (client: WebAppClient) => void | Promise<unknown>): void {
    this.greeters.push(greet);
  }

  /** Resolves once every greeting begun so far has sent all it sends (a test's "nothing more came" waits on it). */
  async greeted(): Promise<void> {
    while (this.greeting.size > 0) await Promise.all([...this.greeting]);
  }

  /** From now on, broadcasts for which `unwanted` says true skip this client (it replaces an earlier one). */
  skipFor(client: WebAppClient, unwanted: (frame: WebAppFrame) => boolean): void {
    if ([...this.clients.values()].includes(client)) this.unwanted.set(client, unwanted);
  }

  /** Called with each client once it has gone (e.g. to end a conversation nobody hears). */
  onDisconnect(leave: (client: WebAppClient) => void): void {
    this.leavers.push(leave);
  }

  /** The clients connected, to this instance and (with several) to the others. */
  get size(): number {
    return this.clients.size + (this.peers?.clients() ?? 0);
  }

  /** The clients connected to this instance. */
  get localSize(): number {
    return this.clients.size;
  }

  /**
   * Handle client frames of a type (`{"type": "interactive_response", ...}`), for callers
   * allowed `twin` through REST; others get `{type: "error", status: 403, detail}`. A null
   * twin: every client may send it, for a frame that changes only what its own screen is shown.
   */
  onMessage(type: string, twin: RestTwin | null, handler: Handler): void {
    this.handlers.set(type, { handler, twin });
  }

  /** Each client frame type handled here with the REST twin whose permission it needs (null: any key that may connect); the frame matrix test reads them. */
  frameTypes(): Array<{ type: string; twin: RestTwin | null }> {
    return [...this.handlers].map(([type, { twin }]) => ({ type, twin }));
  }

  /** This instance's clients, oldest connection first (the other instances' are not known here). */
  screens(): WebAppScreen[] {
    return [...this.clients]
      .map(([ws, c]) => ({ principal: c.principal, tablet: c.tablet, ...(this.seen.get(ws) ?? { connected_at: 0, last_seen_at: 0 }) }))
      .sort((a, b) => a.connected_at - b.connected_at);
  }

  private noteSeen(ws: WebSocket): void {
    this.answered.add(ws);
    const entry = this.seen.get(ws);
    if (entry) entry.last_seen_at = this.clock.now();
  }

  /** Pings every client each `websocket.ping_seconds` of real time while any is connected; one silent since the last ping is cut off. */
  private pingWhileConnected(): void {
    if (this.heartbeat || this.clients.size === 0) return;
    this.heartbeat = setInterval(() => {
      for (const [ws, client] of this.clients) {
        if (ws.readyState !== ws.OPEN) continue;
        if (!this.answered.has(ws)) {
          this.log.warn({ caller: client.principal.name, tablet: client.tablet }, "a web app screen answered nothing for a minute: its connection is closed");
          ws.terminate();
          continue;
        }
        this.answered.delete(ws);
        ws.ping();
      }
    }, this.socketSettings().ping_seconds * 1000);
    this.heartbeat.unref();
  }

  private stopPinging(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** Closes this instance's sockets opened with the managed key `keyId` (revoked or rotated). */
  closeKey(keyId: number): void {
    for (const [ws, client] of this.clients) if (client.principal.key_id === keyId) ws.close(KEY_REVOKED_CLOSE, "key revoked");
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, throttle: FailureThrottle): boolean {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== WEBAPP_PATH) return false;
    // The key may be looked up in the store (a managed key): the upgrade is taken now, answered then.
    // Meanwhile the socket has no other listener for errors (the HTTP server let go of it): a
    // reset client must not become an uncaught error.
    socket.on("error", () => socket.destroy());
    authenticateUpgrade(this.keys(), throttle, req, {
      allowQuery: true,
      mayUse: mayConnect,
      hint: "Send a key as the WebSocket subprotocol or ?api_key=",
    }).then(
      (auth) => {
        if (!auth.ok) return void socket.end(refusalResponse(auth));
        if (socket.destroyed) return;
        this.accept(req, socket, head, url, auth.principal);
      },
      (err: unknown) => {
        this.log.warn({ err }, "web app socket: the key could not be checked");
        socket.destroy();
      },
    );
    return true;
  }

  private accept(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, principal: Principal): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const refused = this.limits.refusal(principal);
      if (refused) return ws.close(1013, refused);
      const release = this.limits.admit(principal);
      const tablet = url.searchParams.get("tablet");
      const client: WebAppClient = {
        principal,
        tablet: tablet !== null && TABLET_ID.test(tablet) ? tablet : null,
        send: (frame) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(frame)),
      };
      this.clients.set(ws, client);
      const now = this.clock.now();
      this.seen.set(ws, { connected_at: now, last_seen_at: now });
      this.answered.add(ws);
      this.pingWhileConnected();
      ws.on("pong", () => this.noteSeen(ws));
      ws.on("ping", () => this.noteSeen(ws));
      ws.on("close", () => {
        this.clients.delete(ws);
        this.seen.delete(ws);
        this.answered.delete(ws);
        if (this.clients.size === 0) this.stopPinging();
        this.unwanted.delete(client);
        release();
        for (const leave of this.leavers) {
          try {
            leave(client);
          } catch (err) {
            this.log.warn({ err }, "web app farewell failed");
          }
        }
      });
      // A frame over the limit or a broken socket: ws closes it; without a listener it would throw.
      ws.on("error", (err) => this.log.debug({ err: err.message, caller: principal.name }, "web app socket error"));
      ws.on("message", (data) => {
        this.noteSeen(ws);
        void this.receive(String(data), client);
      });
      for (const greet of this.greeters) {
        try {
          const sending = greet(client);
          if (sending) {
            const tracked: Promise<unknown> = sending.catch(() => undefined).finally(() => this.greeting.delete(tracked));
            this.greeting.add(tracked);
          }
        } catch (err) {
          this.log.warn({ err }, "web app greeting failed");
        }
      }
    });
  }

  private async receive(text: string, client: WebAppClient): Promise<void> {
    let frame: WebAppFrame;
    try {
      frame = JSON.parse(text) as WebAppFrame;
    } catch {
      return client.send({ type: "error", detail: "frames are JSON objects with a type" });
    }
    const entry = typeof frame?.type === "string" ? this.handlers.get(frame.type) : undefined;
    if (!entry) return client.send({ type: "error", detail: `unknown frame type '${String(frame?.type)}'` });
    if (entry.twin && !isAllowed(client.principal, entry.twin.method, entry.twin.path)) {
      return client.send({ type: "error", status: 403, detail: `This key may not send '${frame.type}' (it needs ${entry.twin.method} ${entry.twin.path})` });
    }
    try {
      await entry.handler(frame, client);
    } catch (err) {
      this.log.warn({ err, type: frame.type }, "web app frame failed");
      client.send({ type: "error", detail: err instanceof Error ? err.message : String(err) });
    }
  }

  async close(): Promise<void> {
    this.stopPinging();
    this.answered.clear();
    for (const ws of this.clients.keys()) ws.terminate();
    this.clients.clear();
    this.seen.clear();
    this.wss.close();
    // A greeting under way reads the store (replays to a tablet that just connected): it ends
    // before the store closes, or its query is cut off mid-acquire when the pool goes.
    await this.greeted();
  }
}
