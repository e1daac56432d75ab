/**
 * A fake realtime speech model speaking the OpenAI Realtime API over WebSocket: the beta event
 * names and session shape (as with `OpenAI-Beta: realtime=v1`) by default, or the GA ones with
 * `names: "ga"` (realtime-ga.ts; a GA server that ignores the beta header), for the voice bridge's tests and for trying the
 * bridge by hand (`npm run fake-realtime`, see realtime-server-main.ts).
 *
 * Connection: `ws://127.0.0.1:<port>/v1/realtime?model=<any>`; with an `apiKey`, the upgrade
 * needs `Authorization: Bearer <apiKey>` (else HTTP 401 with the API's JSON error, no upgrade);
 * no `model` is a 400. `session.created` is sent on connect.
 *
 * Client events (realtime-session.ts): `session.update`, `input_audio_buffer.append` / `commit`
 * / `clear`, `conversation.item.create` (user/system/assistant messages, `function_call_output`),
 * `conversation.item.truncate` / `delete`, `response.create`, `response.cancel`. Anything else,
 * bad JSON or a missing field is an `error` event (the connection stays open).
 *
 * Turn detection: with `server_vad` (the default) an energy VAD over the appended pcm16 (24 kHz
 * mono) starts speech at a 20 ms window louder than `vadThreshold` (RMS of int16, default 500)
 * and ends it after `silence_duration_ms` of quieter audio, all in audio time; then it commits,
 * transcribes (the script's transcript) and answers by itself. With `turn_detection: null` the
 * client commits and asks for the response.
 *
 * What the model "hears" and answers comes from a script of turns (see `Turn`); a spoken answer
 * is a soft tone of 60 ms per character in 50 ms `response.audio.delta` chunks, with the
 * transcript word by word between them, sent without real-time pacing.
 *
 * Where it differs from the API, on purpose: the transcription is sent whether or not
 * `input_audio_transcription` is set (the script is what was heard); the model's own items get
 * no `conversation.item.created` and no `rate_limits.updated` follows `response.done` (a bridge
 * should ignore both); only pcm16 is accepted (its VAD reads pcm16); the VAD's threshold is
 * `vadThreshold`, not the session's 0..1 `threshold`; usage token counts are made up.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { RealtimeNames } from "./realtime-ga";
import { RealtimeConnection, type RealtimeHost } from "./realtime-session";

export { pcm16Silence, pcm16Tone, SAMPLE_RATE, type ToneOptions } from "./realtime-audio";

/** One exchange of the script. */
export interface Turn {
  /** What starts this turn: a user utterance (committed audio, or a user text message followed by response.create), or a response.create with no new user input (e.g. the bridge asks the model to speak first). Default "speech". */
  on?: "speech" | "response";
  /** What the fake "heard" (the transcription of the committed audio). */
  transcript?: string;
  /** Function calls the model makes first (arguments as an object, sent as a JSON string). */
  calls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
  /** What the model then says (after the function outputs arrived and the client's response.create). May use {{output:<tool name>}} to put that call's output string in the words. */
  say: string;
}

export interface RealtimeTool {
  type: "function";
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface TurnDetection {
  type: string;
  /** The API's 0..1 threshold, kept as sent; the fake's VAD uses `vadThreshold` instead. */
  threshold?: number;
  prefix_padding_ms?: number;
  silence_duration_ms?: number;
  /** false: speech is committed but no response is started (the API's default is true). */
  create_response?: boolean;
  /** false: speech does not cancel a response in progress (the API's default is true). */
  interrupt_response?: boolean;
}

/** The session as `session.created` / `session.updated` carry it. */
export interface RealtimeSessionConfig {
  id: string;
  object: "realtime.session";
  model: string;
  modalities: string[];
  voice: string;
  instructions: string;
  input_audio_format: string;
  output_audio_format: string;
  input_audio_transcription: Record<string, unknown> | null;
  turn_detection: TurnDetection | null;
  tools: RealtimeTool[];
  tool_choice: string | Record<string, unknown>;
  temperature: number;
  max_response_output_tokens: number | "inf";
  speed?: number;
  input_audio_noise_reduction?: Record<string, unknown> | null;
  tracing?: string | Record<string, unknown> | null;
}

/** A conversation item as the server sends it. */
export interface RealtimeItem {
  id: string;
  object: "realtime.item";
  type: "message" | "function_call" | "function_call_output";
  status?: "in_progress" | "completed" | "incomplete";
  role?: "user" | "assistant" | "system";
  content?: Array<Record<string, unknown>>;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string;
}

/** A client event as received (JSON that is not an object is recorded as `{type: "(invalid JSON)", text}`). */
export interface ClientEvent {
  type: string;
  [field: string]: unknown;
}

export interface ReceivedEvent {
  /** The session id (`sess_…`) of the connection that sent it. */
  session: string;
  /** `input_audio_buffer.append` is kept as `{type, event_id?, bytes}` (decoded length), not the audio. */
  event: ClientEvent;
}

/** A connection as tests see it (a copy, taken when read). */
export interface FakeRealtimeSession {
  id: string;
  model: string;
  /** The `OpenAI-Beta` header of the upgrade, if any. */
  openaiBeta: string | undefined;
  /** The names and shapes the connection spoke. */
  names: RealtimeNames;
  /** Kept in the beta shape whichever names the connection speaks. */
  config: RealtimeSessionConfig;
  /** Every `error` event the connection was sent (what the API would have refused), oldest first. */
  errors: Array<{ code: string; message: string; param: string | null }>;
  /** Every function_call_output received, by the name of the call it answers, oldest first. */
  functionOutputs: Record<string, string[]>;
  /** The conversation, oldest first (user input, the model's messages and calls, function outputs). */
  items: RealtimeItem[];
  open: boolean;
  /** The close code once closed. */
  closeCode?: number;
}

export interface FakeRealtimeOptions {
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  /** Required `Authorization: Bearer` key (default: none required). */
  apiKey?: string;
  /** The turns to play, in order (see `setScript`). */
  script?: Turn[];
  /** RMS of int16 above which a 20 ms window is speech (default 500). */
  vadThreshold?: number;
  /** The event names and session shape spoken: the beta API's (default) or GA's. */
  names?: RealtimeNames;
  /** Told a line for every connection, client event and response. */
  log?: (line: string) => void;
}

export interface FakeRealtime {
  /** ws://127.0.0.1:<port>/v1/realtime (add `?model=…`). */
  url: string;
  port: number;
  /** Every client event in order, of every session (a live array). */
  received: ReceivedEvent[];
  /** Every connection so far, in order of connecting. */
  readonly sessions: FakeRealtimeSession[];
  /** The turns not yet played. */
  readonly script: Turn[];
  /** Replaces the turns not yet played. */
  setScript(turns: Turn[]): void;
  /** The names and session shape of the connections made from now on. */
  setNames(names: RealtimeNames): void;
  /** The first client event (already received or yet to come) matching; rejects after timeoutMs (default 5000). */
  waitFor(predicate: (event: ClientEvent, session: string) => boolean, timeoutMs?: number): Promise<ClientEvent>;
  /** Closes every connection with 1012 (service restart), as a server that restarts. */
  closeAll(): void;
  close(): Promise<void>;
}

/** What the model does when the script has no turn for the occasion. */
const DEFAULT_SPEECH_TURN: Turn = { on: "speech", transcript: "(speech)", say: "I heard you." };
const DEFAULT_RESPONSE_TURN: Turn = { on: "response", say: "Hello." };

/** Throws on a turn a script cannot hold (a typo in a by-hand script should not play as silence). */
export function checkTurn(turn: unknown): Turn {
  const t = turn as Turn;
  if (typeof t !== "object" || t === null || typeof t.say !== "string") throw new Error(`a turn needs "say" (text): ${JSON.stringify(turn)}`);
  if (t.on !== undefined && t.on !== "speech" && t.on !== "response") throw new Error(`"on" is "speech" or "response": ${JSON.stringify(turn)}`);
  if (t.calls !== undefined && (!Array.isArray(t.calls) || t.calls.some((c) => typeof c?.name !== "string")))
    throw new Error(`"calls" is a list of {name, arguments?}: ${JSON.stringify(turn)}`);
  return t;
}

/** Answers an upgrade that is refused with an HTTP response, as the API does (no WebSocket). */
function refuse(socket: Duplex, status: number, statusText: string, error: Record<string, unknown>): void {
  const body = JSON.stringify({ error: { type: "invalid_request_error", param: null, ...error } });
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startFakeRealtime(options: FakeRealtimeOptions = {}): Promise<FakeRealtime> {
  const log = options.log ?? (() => {});
  const vadThreshold = options.vadThreshold ?? 500;
  // One queue shared by every session, taken in the order things happen: tests have one
  // bridge connected at a time, and a reconnecting bridge should carry on with the script.
  let queue: Turn[] = (options.script ?? []).map(checkTurn);
  const received: ReceivedEvent[] = [];
  const connections: RealtimeConnection[] = [];
  const waiters = new Set<(r: ReceivedEvent) => void>();

  const host: RealtimeHost = {
    vadThreshold,
    names: options.names ?? "beta",
    log,
    /** The head of the script if it is meant for this occasion; otherwise the default, and the script waits for its occasion. */
    nextTurn(on: "speech" | "response"): Turn {
      const head = queue[0];
      if (head && (head.on ?? "speech") === on) return queue.shift()!;
      return on === "speech" ? DEFAULT_SPEECH_TURN : DEFAULT_RESPONSE_TURN;
    },
    record(session: string, event: ClientEvent): void {
      const r = { session, event };
      received.push(r);
      for (const w of [...waiters]) w(r);
    },
  };

  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const upgradeOnly = new URL(req.url ?? "/", "http://x").pathname === "/v1/realtime";
    res.writeHead(upgradeOnly ? 426 : 404, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ error: { type: "invalid_request_error", message: upgradeOnly ? "WebSocket upgrade required" : "Not found", param: null, code: null } }),
    );
  });
  server.on("connection", (sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
  });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname !== "/v1/realtime") return refuse(socket, 404, "Not Found", { message: `No such path ${url.pathname}`, code: null });
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      log(`refused a connection: ${req.headers.authorization ? "wrong" : "no"} API key`);
      return refuse(socket, 401, "Unauthorized", { message: "Incorrect API key provided.", code: "invalid_api_key" });
    }
    const model = url.searchParams.get("model");
    if (!model) return refuse(socket, 400, "Bad Request", { message: "Missing required parameter: 'model'.", code: "missing_model" });
    const beta = req.headers["openai-beta"];
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new RealtimeConnection(ws, model, Array.isArray(beta) ? beta.join(", ") : beta, host);
      connections.push(conn);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log(`listening on ws://127.0.0.1:${port}/v1/realtime`);

  return {
    url: `ws://127.0.0.1:${port}/v1/realtime`,
    port,
    received,
    get sessions() {
      return connections.map((c) => c.snapshot());
    },
    get script() {
      return structuredClone(queue);
    },
    setScript(turns) {
      queue = turns.map(checkTurn);
    },
    setNames(names) {
      host.names = names;
    },
    waitFor(predicate, timeoutMs = 5000) {
      const past = received.find((r) => predicate(r.event, r.session));
      if (past) return Promise.resolve(past.event);
      return new Promise((resolve, reject) => {
        const waiter = (r: ReceivedEvent) => {
          if (!predicate(r.event, r.session)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          resolve(r.event);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`fake realtime: no such client event in ${timeoutMs} ms; received ${received.map((r) => r.event.type).join(", ") || "nothing"}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    closeAll() {
      for (const c of connections) c.close(1012, "service restart");
    },
    async close() {
      for (const c of connections) c.close(1001, "going away");
      wss.close();
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
