/**
 * `WS /ws/pipeline`: one JSON text frame per PipelineExecutionEvent. The API key is the
 * WebSocket subprotocol (`new WebSocket(url, [key])`), as browsers cannot set headers, one key
 * per upgrade (`platform/ws/upgrade-auth.ts`: a wrong one is counted by the failure throttle); any
 * key that may read `/api/v1/workflows` may listen, within the `websocket` limits (in total and
 * per key; a newcomer over a limit is closed with 1013, nobody else).
 * The feed subscribes to the engine's events only while at least one client is connected;
 * with several instances it also relays the runs of the other instances' engines.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { FailureThrottle } from "../../../platform/auth/failure-throttle";
import { isAllowed, type KeyStore } from "../../../platform/auth/key-store";
import { authenticateUpgrade, chosenProtocol, refusalResponse } from "../../../platform/ws/upgrade-auth";
import { KEY_REVOKED_CLOSE } from "../../../platform/ws/webapp-hub";
import type { Logger } from "../../../platform/core/logger";
import type { Principal } from "../../../platform/auth/principal";
import { ConnectionLimits, type ConnectionLimitSettings } from "../../../platform/ws/connection-limits";
import type { LiveEvents, PipelineExecutionEvent } from "./engine/live-events";

export const PIPELINE_FEED_PATH = "/ws/pipeline";

export class PipelineFeed {
  private readonly wss = new WebSocketServer({
    noServer: true,
    // Listeners send nothing; a frame is refused (1009) rather than buffered.
    maxPayload: 4096,
    // Accept the protocol authenticateUpgrade chose (the key, or `careflow`), so the browser keeps the connection.
    handleProtocols: (_protocols, req) => chosenProtocol(req) ?? false,
  });
  /** Accepted clients; the feed listens to the engine only while there is one. */
  private readonly clients = new Set<WebSocket>();
  /** The managed key each client opened its socket with. */
  private readonly keyIds = new WeakMap<WebSocket, number>();
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

  /** Closes the sockets opened with the managed key `keyId` (revoked or rotated). */
  closeKey(keyId: number): void {
    for (const ws of this.clients) if (this.keyIds.get(ws) === keyId) ws.close(KEY_REVOKED_CLOSE, "key revoked");
  }

  private join(ws: WebSocket, release: () => void, principal: Principal): void {
    this.clients.add(ws);
    if (principal.key_id !== undefined) this.keyIds.set(ws, principal.key_id);
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

  /** Takes the upgrade when the path is the feed's; false otherwise. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, throttle: FailureThrottle): boolean {
    if ((req.url ?? "").split("?")[0] !== PIPELINE_FEED_PATH) return false;
    // The key may be looked up in the store (a managed key): the upgrade is taken now, answered then.
    // Meanwhile the socket has no other listener for errors (the HTTP server let go of it): a
    // reset client must not become an uncaught error.
    socket.on("error", () => socket.destroy());
    authenticateUpgrade(this.keys, throttle, req, {
      allowQuery: false,
      mayUse: (p) => isAllowed(p, "GET", "/api/v1/workflows"),
      hint: "Send an API key as the WebSocket subprotocol",
    }).then(
      (auth) => {
        if (!auth.ok) return void socket.end(refusalResponse(auth));
        if (socket.destroyed || this.closed) return void socket.destroy();
        this.accept(req, socket, head, auth.principal);
      },
      (err: unknown) => {
        this.log.warn({ err }, "live feed: the key could not be checked");
        socket.destroy();
      },
    );
    return true;
  }

  private accept(req: IncomingMessage, socket: Duplex, head: Buffer, principal: Principal): void {
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      if (this.closed) return void ws.terminate();
      const refused = this.limits.refusal(principal);
      if (refused) return void ws.close(1013, refused);
      this.join(ws, this.limits.admit(principal), principal);
      this.log.debug({ clients: this.clients.size }, "live feed client connected");
    });
  }

  close(): void {
    this.closed = true;
    this.stopListening();
    for (const c of this.wss.clients) c.terminate();
    this.wss.close();
  }
}
