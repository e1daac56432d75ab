/**
 * The voice companion (`pwa_realtime_ai`): at most one conversation at a time in the home,
 * started by a notification, an interactive prompt's voice prompt, the senior's Talk button
 * or the REST API. What arrives while one goes on is said in it next, so two conversations
 * never talk over each other. The web app's frames on `/ws`: `voice_audio {session_id,
 * audio}` (microphone, base64 PCM 24 kHz), `voice_stop {session_id}`, `voice_start {}`; each
 * needs the right to converse (`POST /api/v1/voice/sessions`).
 */
import { NO_WEB_APP } from "../../../../vocabulary/tablet";
import type { ServiceAnswer } from "../../../../vocabulary/answers";
import { NO_VOICE_MODEL, type ConverseRequest, type Conversing } from "../../../../vocabulary/voice";
import type { WebAppClient, WebAppFrame } from "../../../platform/ws/webapp-hub";
import { seniorWords } from "../../../household/persons/senior-language";
import { wordsIn } from "../../../platform/i18n/catalogs";
import type { CareContext } from "../../core/context";
import type { OccupancyBoard } from "../../../household/occupancy/occupancy.board";
import type { ToolRegistry } from "../mcp/registry";
import { RealtimeConnection } from "../../services/llm/realtime-client";
import { VoiceSession, type SessionSummary } from "./voice-session";

const NOBODY = NO_WEB_APP;
/** Ended conversations kept for `GET /voice/sessions`. */
const RECENT = 20;
/** A microphone chunk is at most a few hundred ms of audio; the socket's own limit is 1 MB. */
const MAX_AUDIO_CHARS = 256 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const CONVERSE_TWIN = { method: "POST", path: "/api/v1/voice/sessions" } as const;

const fail = (reason: string): ServiceAnswer<Conversing> => ({ ok: false, reason });

export class VoiceCompanion {
  private current: VoiceSession | null = null;
  private readonly ended: SessionSummary[] = [];
  /** Starts run one after another: two notifications at once make one conversation, not two. */
  private starting: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly ctx: CareContext,
    private readonly tools: ToolRegistry,
    private readonly occupancy: OccupancyBoard,
  ) {}

  start(request: ConverseRequest, signal?: AbortSignal): Promise<ServiceAnswer<Conversing>> {
    const mine = this.starting.then(() => this.startNow(request, signal));
    this.starting = mine.catch(() => undefined);
    return mine;
  }

  private async startNow(request: ConverseRequest, signal?: AbortSignal): Promise<ServiceAnswer<Conversing>> {
    const settings = this.ctx.settings.llm.realtime;
    if (this.closed) return fail("the voice companion is stopping");
    if (!settings?.url) return fail(NO_VOICE_MODEL);
    if (this.ctx.webapp.size === 0) return fail(NOBODY);
    if (this.current?.open) {
      this.current.add(request);
      return { ok: true, value: { session_id: this.current.id, model: this.current.model, clients: this.ctx.webapp.size, joined: true } };
    }
    // Her language is read before the model is reached, so a store that cannot answer leaves no connection open.
    const words = await seniorWords(this.ctx).catch(() => wordsIn(this.ctx.settings.app.language));
    const opened = await RealtimeConnection.open(settings, signal);
    if (!opened.ok) {
      this.ctx.log.warn({ reason: opened.reason }, "voice: the realtime model could not be reached");
      return fail(opened.reason);
    }
    const session = new VoiceSession(
      { ctx: this.ctx, tools: this.tools, occupancy: this.occupancy, settings, words, onEnd: (s) => this.onEnd(s) },
      opened.connection,
      request,
    );
    this.current = session;
    const clients = session.begin();
    this.ctx.log.info({ session_id: session.id, reason: request.reason, clients }, "voice: conversation started");
    if (clients === 0) {
      session.end(NOBODY);
      return fail(NOBODY);
    }
    return { ok: true, value: { session_id: session.id, model: session.model, clients, joined: false } };
  }

  /** The conversation going on and the last ones, newest first. */
  list(): { active: SessionSummary | null; recent: SessionSummary[] } {
    return { active: this.current?.open ? this.current.summary() : null, recent: [...this.ended].reverse() };
  }

  /** Ends a conversation; false when no such conversation goes on. */
  stop(sessionId: string, reason: string): boolean {
    if (!this.current?.open || this.current.id !== sessionId) return false;
    this.current.end(reason);
    return true;
  }

  /** The web app's frames, and the end of a conversation when no web app is left to hear it. */
  registerFrames(): void {
    const { webapp } = this.ctx;
    webapp.onMessage("voice_audio", CONVERSE_TWIN, (frame, client) => this.onAudio(frame, client));
    webapp.onMessage("voice_stop", CONVERSE_TWIN, (frame, client) => {
      const id = typeof frame.session_id === "string" ? frame.session_id : "";
      if (!this.stop(id, "the senior ended the conversation")) client.send({ type: "error", detail: `session_id: no conversation '${id}' is going on` });
    });
    webapp.onMessage("voice_start", CONVERSE_TWIN, async (_frame, client) => {
      const answer = await this.start({ reason: "senior", text: null, instruction: null });
      client.send(
        answer.ok
          ? { type: "voice", subtype: "start_result", ok: true, session_id: answer.value.session_id }
          : { type: "voice", subtype: "start_result", ok: false, detail: answer.reason },
      );
    });
    webapp.onDisconnect((client) => {
      if (!this.current?.open) return;
      if (webapp.size === 0) this.current.end(NOBODY);
      else this.current.release(client);
    });
  }

  private onAudio(frame: WebAppFrame, client: WebAppClient): void {
    const id = frame.session_id;
    const audio = frame.audio;
    if (typeof id !== "string" || typeof audio !== "string")
      return client.send({ type: "error", detail: "voice_audio needs session_id and audio (base64 PCM) as strings" });
    if (audio.length > MAX_AUDIO_CHARS || audio.length % 4 !== 0 || !BASE64.test(audio)) {
      return client.send({ type: "error", detail: `audio: base64 of int16 PCM at 24 kHz, at most ${MAX_AUDIO_CHARS} characters per frame` });
    }
    const session = this.current;
    if (!session?.open || session.id !== id)
      return client.send({ type: "voice", subtype: "session_end", session_id: id, reason: "no such conversation is going on" });
    session.appendAudio(client, audio);
  }

  private onEnd(session: VoiceSession): void {
    if (this.current === session) this.current = null;
    this.ended.push(session.summary());
    if (this.ended.length > RECENT) this.ended.shift();
  }

  close(): void {
    this.closed = true;
    this.current?.end("careflow is stopping");
  }
}
