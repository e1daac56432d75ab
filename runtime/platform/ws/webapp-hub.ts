/**
 * `WS /ws`: the web app's socket. Clients receive popups, interactive prompts and alert
 * updates as JSON frames and may answer prompts. A client authenticates with a key as the
 * WebSocket subprotocol or the `api_key` query parameter; API keys of any role and
 * terminal or display device keys may connect and receive. A frame that acts (answers a
 * prompt) needs the permission of its REST twin, checked here for every frame type, so a
 * display key can watch prompts but not answer them. Connections are limited in total and
 * per key (`websocket` settings); a newcomer over a limit is refused, nobody is evicted.
 * With several instances (docs/cluster.md "Events") every broadcast also goes to the clients
 * of the other instances, through the peers the cluster wiring gives it.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { isAllowed, type KeyStore } from "../auth/key-store";
import type { Principal } from "../auth/principal";
import type { Logger } from "../core/logger";
import { ConnectionLimits, type ConnectionLimitSettings } from "./connection-limits";

export const WEBAPP_PATH = "/ws";
/** As JSON bodies: a bigger frame closes the connection (1009). Audio chunks are far smaller. */
const MAX_FRAME_BYTES = 1 << 20;

export interface WebAppFrame {
  type: string;
  [k: string]: unknown;
}

export interface WebAppClient {
  principal: Principal;
  send(frame: WebAppFrame): void;
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

const mayConnect = (p: Principal | null): p is Principal => p !== null && (p.kind === "api" || p.device_type === "terminal" || p.device_type === "display");

export class WebAppHub {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    handleProtocols: (protocols) => [...protocols].find((k) => mayConnect(this.keys().resolve(k))) ?? false,
  });
  private readonly clients = new Map<WebSocket, WebAppClient>();
  private readonly handlers = new Map<string, { handler: Handler; twin: RestTwin }>();
  private readonly limits: ConnectionLimits;
  private readonly greeters: Array<(client: WebAppClient) => void> = [];
  private readonly leavers: Array<(client: WebAppClient) => void> = [];
  private peers: WebAppPeers | null = null;

  constructor(
    private readonly keys: () => KeyStore,
    private readonly log: Logger,
    limits: () => ConnectionLimitSettings,
  ) {
    this.limits = new ConnectionLimits(limits);
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

  /** Called with each client as it connects, e.g. to send it a welcome frame. */
  onConnect(greet: (client: WebAppClient) => void): void {
    this.greeters.push(greet);
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
   * allowed `twin` through REST; others get `{type: "error", status: 403, detail}`.
   */
  onMessage(type: string, twin: RestTwin, handler: Handler): void {
    this.handlers.set(type, { handler, twin });
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== WEBAPP_PATH) return false;
    const offered = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const key = offered.find((k) => mayConnect(this.keys().resolve(k))) ?? url.searchParams.get("api_key") ?? "";
    const principal = this.keys().resolve(key);
    if (!mayConnect(principal)) {
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${JSON.stringify({ detail: "Send a key as the WebSocket subprotocol or ?api_key=" })}`,
      );
      return true;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const refused = this.limits.refusal(principal);
      if (refused) return ws.close(1013, refused);
      const release = this.limits.admit(principal);
      const client: WebAppClient = { principal, send: (frame) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(frame)) };
      this.clients.set(ws, client);
      ws.on("close", () => {
        this.clients.delete(ws);
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
      ws.on("message", (data) => void this.receive(String(data), client));
      for (const greet of this.greeters) {
        try {
          greet(client);
        } catch (err) {
          this.log.warn({ err }, "web app greeting failed");
        }
      }
    });
    return true;
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
    if (!isAllowed(client.principal, entry.twin.method, entry.twin.path)) {
      return client.send({ type: "error", status: 403, detail: `This key may not send '${frame.type}' (it needs ${entry.twin.method} ${entry.twin.path})` });
    }
    try {
      await entry.handler(frame, client);
    } catch (err) {
      this.log.warn({ err, type: frame.type }, "web app frame failed");
      client.send({ type: "error", detail: err instanceof Error ? err.message : String(err) });
    }
  }

  close(): void {
    for (const ws of this.clients.keys()) ws.terminate();
    this.clients.clear();
    this.wss.close();
  }
}
