/**
 * A client of the OpenAI Realtime API over WebSocket: the voice companion's model, local or
 * hosted. One connection is one conversation. It connects (`?model=`, `Authorization:
 * Bearer`, `OpenAI-Beta: realtime=v1`), waits for `session.created`, then carries JSON events
 * both ways. The beta event names are the ones sent; the GA names of the events received
 * (`response.output_audio.delta`, ...) are read as their beta twins, and on a server whose
 * `session.created` is GA's the session is sent in GA's shape (realtime-dialect.ts), so either
 * kind of server works. Every failure to connect is an answer with its reason, never a throw.
 */
import { EventEmitter } from "node:events";
import WebSocket from "ws";
import type { Settings } from "../../../../settings";
import { NO_VOICE_MODEL } from "../../../../vocabulary/voice";
import { GA_TO_BETA, isGaSession, toGaClientEvent } from "./realtime-dialect";

export type RealtimeSettings = NonNullable<Settings["llm"]["realtime"]>;

/** A realtime voice model is configured: `llm.realtime.url` is set (the one test of it). */
export const realtimeConfigured = (settings: Pick<Settings, "llm">): boolean => Boolean(settings.llm.realtime?.url);

/** An event of the protocol, either way: a `type` and its fields. */
export interface RealtimeEvent {
  type: string;
  [k: string]: unknown;
}

export type Opened = { ok: true; connection: RealtimeConnection } | { ok: false; reason: string };

/** The Realtime API's address for a model: `ws(s)://host/v1/realtime?model=...` (http(s) taken as ws(s)). */
export function realtimeUrl(settings: RealtimeSettings): string {
  const url = new URL(settings.url ?? "");
  if (url.protocol === "http:") url.protocol = "ws:";
  if (url.protocol === "https:") url.protocol = "wss:";
  if (!url.searchParams.has("model")) url.searchParams.set("model", settings.model);
  return url.toString();
}

export class RealtimeConnection extends EventEmitter {
  /** Why the connection ended, once it has (`closed` resolves with it too). */
  endReason: string | null = null;
  readonly closed: Promise<string>;
  /** The server speaks GA (its `session.created` said so): what is sent is put in GA's shape. */
  ga = false;

  private constructor(private readonly ws: WebSocket) {
    super();
    this.closed = new Promise((resolve) => {
      ws.on("close", (code, reason) => {
        this.endReason ??= `the voice model closed the connection (${code}${reason.length ? `: ${reason.toString()}` : ""})`;
        resolve(this.endReason);
        this.emit("closed", this.endReason);
      });
    });
    ws.on("error", (err) => {
      this.endReason ??= `the voice model's connection failed: ${err.message}`;
    });
    ws.on("message", (data) => {
      let event: RealtimeEvent;
      try {
        event = JSON.parse(String(data)) as RealtimeEvent;
      } catch {
        return; // not an event of the protocol: nothing to act on
      }
      if (typeof event?.type !== "string") return;
      const type = GA_TO_BETA[event.type] ?? event.type;
      this.emit("event", type === event.type ? event : { ...event, type });
    });
  }

  /**
   * Opens a conversation: resolves once the server said `session.created`, or with the reason
   * it could not (refused, unreachable, no answer within `connect_timeout_seconds`).
   */
  static open(settings: RealtimeSettings, signal?: AbortSignal): Promise<Opened> {
    let url: string;
    try {
      url = realtimeUrl(settings);
    } catch {
      return Promise.resolve({ ok: false, reason: NO_VOICE_MODEL });
    }
    const headers: Record<string, string> = { "OpenAI-Beta": "realtime=v1" };
    if (settings.api_key) headers.Authorization = `Bearer ${settings.api_key}`;
    const where = `${new URL(url).host}`;
    return new Promise<Opened>((resolve) => {
      const ws = new WebSocket(url, { headers, handshakeTimeout: settings.connect_timeout_seconds * 1000 });
      const connection = new RealtimeConnection(ws);
      let settled = false;
      const settle = (answer: Opened): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        connection.off("event", onEvent);
        if (!answer.ok) ws.terminate();
        resolve(answer);
      };
      const onEvent = (event: RealtimeEvent): void => {
        if (event.type === "session.created") {
          connection.ga = isGaSession(event.session);
          settle({ ok: true, connection });
        } else if (event.type === "error") settle({ ok: false, reason: `the voice model at ${where} refused the session: ${errorMessage(event)}` });
      };
      const onAbort = (): void => settle({ ok: false, reason: "cancelled before the voice model answered" });
      const timer = setTimeout(
        () => settle({ ok: false, reason: `the voice model at ${where} did not answer within ${settings.connect_timeout_seconds} s` }),
        settings.connect_timeout_seconds * 1000,
      );
      connection.on("event", onEvent);
      signal?.addEventListener("abort", onAbort, { once: true });
      ws.once("unexpected-response", (_req, res) => {
        settle({ ok: false, reason: `the voice model at ${where} refused the connection (HTTP ${res.statusCode})` });
      });
      ws.once("error", (err) => settle({ ok: false, reason: `the voice model at ${where} could not be reached: ${err.message}` }));
      ws.once("close", () => settle({ ok: false, reason: `the voice model at ${where} closed the connection before the session started` }));
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(event: RealtimeEvent): void {
    if (this.open) this.ws.send(JSON.stringify(this.ga ? toGaClientEvent(event) : event));
  }

  onEvent(listener: (event: RealtimeEvent) => void): void {
    this.on("event", listener);
  }

  close(reason: string): void {
    this.endReason ??= reason;
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000, reason.slice(0, 120));
  }
}

/** The message of an `error` event, whatever its shape. */
export function errorMessage(event: RealtimeEvent): string {
  const e = event.error as { message?: unknown; code?: unknown } | undefined;
  return String(e?.message ?? e?.code ?? "unknown error");
}
