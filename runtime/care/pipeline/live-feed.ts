/**
 * `WS /ws/pipeline`: one JSON text frame per PipelineExecutionEvent. The API key is the
 * WebSocket subprotocol (`new WebSocket(url, [key])`), as browsers cannot set headers; any
 * key that may read `/api/v1/workflows` may listen, within the `websocket` limits (in total and
 * per key; a newcomer over a limit is closed with 1013, nobody else).
 * The feed subscribes to the engine's events only while at least one client is connected;
 * with several instances it also relays the runs of the other instances' engines.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { isAllowed, type KeyStore } from "../../platform/auth/key-store";
import type { Logger } from "../../platform/core/logger";
import { ConnectionLimits, type ConnectionLimitSettings } from "../../platform/ws/connection-limits";
import type { LiveEvents, PipelineExecutionEvent } from "./engine/live-events";

export const PIPELINE_FEED_PATH = "/ws/pipeline";

export class PipelineFeed {
  private readonly wss = new WebSocketServer({
    noServer: true,
    // Listeners send nothing; a frame is refused (1009) rather than buffered.
    maxPayload: 4096,
    // Accept the protocol that is a valid key, so the browser keeps the connection.
    handleProtocols: (protocols) => [...protocols].find((p) => this.keyAllowed(p)) ?? false,
  });
  /** Accepted clients; the feed listens to the engine only while there is one. */
  private readonly clients = new Set<WebSocket>();
  private unsubscribe?: () => void;
  private closed = false;
  private readonly limits: ConnectionLimits;

  constructor(
    private readonly keys: KeyStore,
    private readonly live: LiveEvents,
    private readonly log: Logger,
    limits: () => ConnectionLimitSettings,
  ) {
    this.limits = new ConnectionLimits(limits);
  }

  private broadcast(event: PipelineExecutionEvent): void {
    const frame = JSON.stringify(event);
    for (const client of this.clients) if (client.readyState === client.OPEN) client.send(frame);
  }

  private join(ws: WebSocket, release: () => void): void {
    this.clients.add(ws);
    ws.on("error", (err) => this.log.debug({ err: err.message }, "live feed socket error"));
    ws.once("close", () => {
      release();
      this.leave(ws);
    });
    // The first client makes the engine build events; until then it builds none for us.
    // With several instances the feed shows every instance's runs (docs/cluster.md "Events").
    if (!this.unsubscribe) this.unsubscribe = this.live.subscribe((e) => this.broadcast(e), null, { otherInstances: true });
  }

  private leave(ws: WebSocket): void {
    this.clients.delete(ws);
    if (this.clients.size === 0) this.stopListening();
  }

  private stopListening(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private keyAllowed(key: string): boolean {
    const p = this.keys.resolve(key);
    return p !== null && isAllowed(p, "GET", "/api/v1/workflows");
  }

  /** Takes the upgrade when the path is the feed's; false otherwise. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if ((req.url ?? "").split("?")[0] !== PIPELINE_FEED_PATH) return false;
    const offered = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const key = offered.find((k) => this.keyAllowed(k));
    const principal = key === undefined ? null : this.keys.resolve(key);
    if (!principal) {
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${JSON.stringify({ detail: "Send an API key as the WebSocket subprotocol" })}`,
      );
      return true;
    }
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      if (this.closed) return void ws.terminate();
      const refused = this.limits.refusal(principal);
      if (refused) return void ws.close(1013, refused);
      this.join(ws, this.limits.admit(principal));
      this.log.debug({ clients: this.clients.size }, "live feed client connected");
    });
    return true;
  }

  close(): void {
    this.closed = true;
    this.stopListening();
    for (const c of this.wss.clients) c.terminate();
    this.wss.close();
  }
}
