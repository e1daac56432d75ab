/**
 * One connection of the fake realtime model (realtime-server.ts): the client events it
 * understands, the input buffer and its VAD, and the responses it plays from the script.
 */
import type { WebSocket } from "ws";
import { EnergyVad } from "./realtime-audio";
import { playResponse, realtimeId, responseUsage, type ActiveResponse, type Plan, type ResponseSink } from "./realtime-response";
import type { ClientEvent, FakeRealtimeSession, RealtimeItem, RealtimeSessionConfig, Turn } from "./realtime-server";
import { checkGaSessionUpdate, gaResponseModalities, gaSession, toGa, type RealtimeNames } from "./realtime-ga";
import { checkSessionUpdate, checkItem, ClientError, isObject, checkModalities } from "./realtime-validate";

/** What the connections share with the server: the script and the record of client events. */
export interface RealtimeHost {
  vadThreshold: number;
  /** The event names and session shape a new connection speaks. */
  names: RealtimeNames;
  log(line: string): void;
  /** The turn for a user utterance ("speech") or a response.create without new input ("response"). */
  nextTurn(on: "speech" | "response"): Turn;
  record(session: string, event: ClientEvent): void;
}

/** A turn whose calls were made: the next client response.create speaks its words with their outputs. */
interface PendingSay {
  turn: Turn;
  callIds: Set<string>;
  outputs: Map<string, string>;
}

export class RealtimeConnection {
  private config: RealtimeSessionConfig;
  private readonly items: RealtimeItem[] = [];
  private readonly functionOutputs: Record<string, string[]> = {};
  /** call_id → name of every call the model made, so an output for a call never made is refused. */
  private readonly issuedCalls = new Map<string, string>();
  private readonly vad: EnergyVad;
  private bufferedBytes = 0;
  /** The id the user item will have, given out at speech_started. */
  private speechItemId: string | null = null;
  private active: ActiveResponse | null = null;
  private pendingSay: PendingSay | null = null;
  /** Audio committed without an automatic response: the next response.create answers it. */
  private heardTurn: Turn | null = null;
  private userTextWaiting = false;
  private closeCode: number | undefined;
  private readonly names: RealtimeNames;
  /** Every `error` event sent to the client (what the API refused), oldest first. */
  private readonly errors: Array<{ code: string; message: string; param: string | null }> = [];

  constructor(
    private readonly ws: WebSocket,
    model: string,
    private readonly openaiBeta: string | undefined,
    private readonly host: RealtimeHost,
  ) {
    this.vad = new EnergyVad(host.vadThreshold);
    this.names = host.names;
    this.config = {
      id: realtimeId("sess"),
      object: "realtime.session",
      model,
      modalities: ["text", "audio"],
      voice: "alloy",
      instructions: "",
      input_audio_format: "pcm16",
      output_audio_format: "pcm16",
      input_audio_transcription: null,
      turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
      tools: [],
      tool_choice: "auto",
      temperature: 0.8,
      max_response_output_tokens: "inf",
    };
    ws.on("message", (data) => this.onMessage(String(data)));
    ws.on("close", (code) => {
      this.closeCode = code;
      if (this.active) this.active.ended = true;
      this.active = null;
      host.log(`${this.id} closed (${code})`);
    });
    // A bad frame from the client closes the socket; the close handler above records it.
    ws.on("error", (err) => host.log(`${this.id} socket error: ${err.message}`));
    host.log(`${this.id} connected (model ${model}, ${this.names} names)`);
    this.send("session.created", { session: this.sessionView() });
  }

  get id(): string {
    return this.config.id;
  }

  snapshot(): FakeRealtimeSession {
    return structuredClone({
      id: this.id,
      model: this.config.model,
      openaiBeta: this.openaiBeta,
      names: this.names,
      config: this.config,
      errors: this.errors,
      functionOutputs: this.functionOutputs,
      items: this.items,
      open: this.closeCode === undefined,
      ...(this.closeCode === undefined ? {} : { closeCode: this.closeCode }),
    });
  }

  close(code: number, reason: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(code, reason);
  }

  /** Sends a server event, given in beta names and shapes; a GA connection renames and reshapes it. */
  private send(type: string, fields: Record<string, unknown>): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const events: Array<[string, Record<string, unknown>]> = this.names === "ga" ? toGa(type, fields) : [[type, fields]];
    for (const [t, f] of events) this.ws.send(JSON.stringify({ type: t, event_id: realtimeId("event"), ...f }));
  }

  /** The session as this connection's dialect shows it. */
  private sessionView(): unknown {
    return this.names === "ga" ? gaSession(this.config) : this.config;
  }

  private onMessage(text: string): void {
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      this.host.record(this.id, { type: "(invalid JSON)", text: text.slice(0, 200) });
      return this.sendError(new ClientError("invalid_json", "The server could not parse the event: it is not valid JSON."), null);
    }
    if (!isObject(event) || typeof event.type !== "string") {
      this.host.record(this.id, { type: "(invalid JSON)", text: text.slice(0, 200) });
      return this.sendError(new ClientError("missing_required_parameter", "Missing required parameter: 'type'.", "type"), null);
    }
    const ev = event as ClientEvent;
    const clientEventId = typeof ev.event_id === "string" ? ev.event_id : null;
    // Audio is summarised: a test may stream minutes of it, and only its amount is of interest.
    if (ev.type === "input_audio_buffer.append" && typeof ev.audio === "string")
      this.host.record(this.id, { type: ev.type, ...(clientEventId ? { event_id: clientEventId } : {}), bytes: Buffer.byteLength(ev.audio, "base64") });
    else this.host.record(this.id, ev);
    if (ev.type !== "input_audio_buffer.append") this.host.log(`${this.id} ← ${ev.type}`);
    try {
      this.dispatch(ev);
    } catch (err) {
      // A bug of the fake is told to the client (as the API's server_error) rather than killing the test process.
      const known = err instanceof ClientError;
      const e = known ? err : new ClientError("server_error", `The fake failed: ${(err as Error).stack ?? String(err)}`);
      this.host.log(`${this.id} → error ${e.code}: ${e.message}`);
      this.sendError(e, clientEventId, known ? "invalid_request_error" : "server_error");
    }
  }

  private sendError(err: ClientError, clientEventId: string | null, type = "invalid_request_error"): void {
    this.errors.push({ code: err.code, message: err.message, param: err.param });
    this.send("error", { error: { type, code: err.code, message: err.message, param: err.param, event_id: clientEventId } });
  }

  private dispatch(ev: ClientEvent): void {
    switch (ev.type) {
      case "session.update": {
        const ga = this.names === "ga";
        this.config = ga ? checkGaSessionUpdate(this.config, ev.session) : checkSessionUpdate(this.config, ev.session);
        // A changed turn detection starts listening afresh, as a new VAD would.
        const where = !ga ? ev.session : isObject(ev.session) && isObject(ev.session.audio) ? ev.session.audio.input : undefined;
        if (isObject(where) && "turn_detection" in where) this.resetListening();
        return this.send("session.updated", { session: this.sessionView() });
      }
      case "input_audio_buffer.append":
        return this.append(ev);
      case "input_audio_buffer.commit": {
        if (this.bufferedBytes === 0)
          throw new ClientError(
            "input_audio_buffer_commit_empty",
            "Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has 0.00ms of audio.",
          );
        const itemId = this.speechItemId ?? realtimeId("item");
        this.resetListening();
        // A commit by hand never starts a response; a second one before response.create replaces the first.
        this.heardTurn = this.commitAudio(itemId);
        return;
      }
      case "input_audio_buffer.clear":
        this.bufferedBytes = 0;
        this.resetListening();
        return this.send("input_audio_buffer.cleared", {});
      case "conversation.item.create":
        return this.createItem(ev.item);
      case "conversation.item.truncate":
        return this.truncate(ev);
      case "conversation.item.delete": {
        const i = this.items.findIndex((it) => it.id === ev.item_id);
        if (i < 0) throw new ClientError("invalid_value", `Item with item_id not found: ${String(ev.item_id)}`, "item_id");
        this.items.splice(i, 1);
        return this.send("conversation.item.deleted", { item_id: ev.item_id });
      }
      case "response.create":
        return this.responseCreate(ev.response);
      case "response.cancel": {
        const active = this.active;
        if (!active || (ev.response_id !== undefined && ev.response_id !== active.id))
          throw new ClientError("response_cancel_not_active", "Cancellation failed: no active response found.");
        return this.endResponse(active, "cancelled", "client_cancelled");
      }
      default:
        throw new ClientError("invalid_value", `Invalid value: '${ev.type}'. The fake supports the Realtime API's client events (${this.names}).`, "type");
    }
  }

  private resetListening(): void {
    this.vad.reset();
    this.speechItemId = null;
  }

  private append(ev: ClientEvent): void {
    if (typeof ev.audio !== "string") throw new ClientError("missing_required_parameter", "Missing required parameter: 'audio'.", "audio");
    // A search for a bad character: an anchored pattern over megabytes of base64 costs far more.
    if (/[^A-Za-z0-9+/=]/.test(ev.audio)) throw new ClientError("invalid_value", "Invalid 'audio': not base64.", "audio");
    const pcm = Buffer.from(ev.audio, "base64");
    const td = this.config.turn_detection;
    let consumed = 0;
    for (const vadEvent of this.vad.feed(pcm, td ? (td.silence_duration_ms ?? 500) : null)) {
      this.bufferedBytes += vadEvent.offset - consumed;
      consumed = vadEvent.offset;
      if (vadEvent.type === "started") this.speechStarted(vadEvent.ms);
      else this.speechStopped(vadEvent.ms);
    }
    this.bufferedBytes += pcm.length - consumed;
  }

  private speechStarted(ms: number): void {
    const td = this.config.turn_detection!;
    this.speechItemId = realtimeId("item");
    // As the API: audio_start_ms reaches back by the prefix padding.
    this.send("input_audio_buffer.speech_started", { audio_start_ms: Math.max(0, ms - (td.prefix_padding_ms ?? 300)), item_id: this.speechItemId });
    this.host.log(`${this.id} speech started at ${ms} ms`);
    // The user talking over the model stops it, as the API's interrupt_response does.
    if (this.active && td.interrupt_response !== false) this.endResponse(this.active, "cancelled", "turn_detected");
  }

  private speechStopped(ms: number): void {
    const td = this.config.turn_detection!;
    const itemId = this.speechItemId ?? realtimeId("item");
    this.speechItemId = null;
    this.send("input_audio_buffer.speech_stopped", { audio_end_ms: ms, item_id: itemId });
    this.host.log(`${this.id} speech stopped at ${ms} ms`);
    const turn = this.commitAudio(itemId);
    // Still answering (interrupt_response false) or told not to answer: the client's response.create will.
    if (td.create_response === false || this.active) this.heardTurn = turn;
    else this.answer(turn, this.config.modalities);
  }

  /** Commits the buffer as a user item and "transcribes" it: the script's turn for a speech is taken here. */
  private commitAudio(itemId: string): Turn {
    this.send("input_audio_buffer.committed", { previous_item_id: this.lastItemId(), item_id: itemId });
    this.bufferedBytes = 0;
    const content: Record<string, unknown> = { type: "input_audio", transcript: null };
    this.addItem({ id: itemId, object: "realtime.item", type: "message", status: "completed", role: "user", content: [content] });
    const turn = this.host.nextTurn("speech");
    content.transcript = turn.transcript ?? "(speech)";
    this.send("conversation.item.input_audio_transcription.completed", { item_id: itemId, content_index: 0, transcript: content.transcript });
    this.host.log(`${this.id} heard "${content.transcript}"`);
    return turn;
  }

  private lastItemId(): string | null {
    return this.items.at(-1)?.id ?? null;
  }

  private addItem(item: RealtimeItem): void {
    const previous = this.lastItemId();
    this.items.push(item);
    this.send("conversation.item.created", { previous_item_id: previous, item });
  }

  private createItem(raw: unknown): void {
    const item = checkItem(raw, realtimeId("item"), this.names);
    if (item.type === "function_call_output") {
      const name = this.issuedCalls.get(item.call_id!);
      if (name === undefined) throw new ClientError("invalid_value", `Tool call ID '${item.call_id}' not found in conversation.`, "item.call_id");
      (this.functionOutputs[name] ??= []).push(item.output!);
      if (this.pendingSay?.callIds.has(item.call_id!)) this.pendingSay.outputs.set(name, item.output!);
    } else if (item.role === "user") this.userTextWaiting = true;
    this.addItem(item);
  }

  private truncate(ev: ClientEvent): void {
    const item = this.items.find((it) => it.id === ev.item_id);
    if (!item || item.role !== "assistant") throw new ClientError("invalid_value", `No assistant message with item_id ${String(ev.item_id)}.`, "item_id");
    if (typeof ev.audio_end_ms !== "number") throw new ClientError("missing_required_parameter", "Missing required parameter: 'audio_end_ms'.", "audio_end_ms");
    this.send("conversation.item.truncated", { item_id: item.id, content_index: ev.content_index ?? 0, audio_end_ms: ev.audio_end_ms });
  }

  private responseCreate(raw: unknown): void {
    if (raw !== undefined && !isObject(raw)) throw new ClientError("invalid_type", "Invalid type for 'response': expected an object.", "response");
    if (this.active)
      throw new ClientError(
        "conversation_already_has_active_response",
        `Conversation already has an active response in progress: ${this.active.id}. Wait until the response is finished before creating a new one.`,
      );
    const asked =
      this.names === "ga"
        ? gaResponseModalities(raw ?? {})
        : raw?.modalities === undefined
          ? undefined
          : checkModalities(raw.modalities, "response.modalities");
    const modalities = asked ?? this.config.modalities;
    // What the model answers, most pressing first: its own unfinished turn, audio committed by
    // hand, a user's text message, or else it was simply asked to speak.
    if (this.pendingSay) {
      const { turn, outputs } = this.pendingSay;
      this.pendingSay = null;
      return this.respond(modalities, { say: this.fill(turn.say, outputs) });
    }
    let turn: Turn;
    if (this.heardTurn) turn = this.heardTurn;
    else if (this.userTextWaiting) turn = this.host.nextTurn("speech");
    else turn = this.host.nextTurn("response");
    this.heardTurn = null;
    this.userTextWaiting = false;
    this.answer(turn, modalities);
  }

  /** The first response of a turn: its calls if it has any (its words wait for their outputs), else its words. */
  private answer(turn: Turn, modalities: string[]): void {
    if (turn.calls?.length) {
      this.pendingSay = { turn, callIds: new Set(), outputs: new Map() };
      this.respond(modalities, { calls: turn.calls });
    } else this.respond(modalities, { say: this.fill(turn.say, new Map()) });
  }

  /** {{output:<name>}} → the output of this turn's call of that name (else the session's latest). */
  private fill(say: string, outputs: Map<string, string>): string {
    return say.replace(/\{\{output:([^}]+)\}\}/g, (_m, name: string) => outputs.get(name) ?? this.functionOutputs[name]?.at(-1) ?? `(no output for ${name})`);
  }

  private respond(modalities: string[], plan: Plan): void {
    const r: ActiveResponse = { id: realtimeId("resp"), output: [], ended: false };
    this.active = r;
    this.send("response.created", {
      response: { id: r.id, object: "realtime.response", status: "in_progress", status_details: null, output: [], usage: null },
    });
    this.host.log(`${this.id} response ${r.id}: ${"calls" in plan ? `calls ${plan.calls.map((c) => c.name).join(", ")}` : `says "${plan.say}"`}`);
    void playResponse(this.sink, r, plan, modalities.includes("audio"))
      .then((completed) => completed && this.endResponse(r, "completed"))
      .catch((err: Error) => this.host.log(`${this.id} response ${r.id} failed: ${err.message}`));
  }

  /** What a response needs of the connection: its items join the conversation, its calls may be answered. */
  private readonly sink: ResponseSink = {
    send: (type, fields) => this.send(type, fields),
    itemAdded: (item) => void this.items.push(item),
    callMade: (callId, name) => {
      this.issuedCalls.set(callId, name);
      this.pendingSay?.callIds.add(callId);
    },
  };

  private endResponse(r: ActiveResponse, status: "completed" | "cancelled", reason?: string): void {
    if (r.ended) return;
    r.ended = true;
    if (this.active === r) this.active = null;
    for (const item of r.output) if (item.status === "in_progress") item.status = "incomplete";
    const usage = responseUsage(r.output, this.items.length);
    const details = status === "completed" ? null : { type: "cancelled", reason };
    this.send("response.done", { response: { id: r.id, object: "realtime.response", status, status_details: details, output: r.output, usage } });
    this.host.log(`${this.id} response ${r.id} ${status}${reason ? ` (${reason})` : ""}`);
  }
}
