/**
 * One conversation of the voice companion: a Realtime API connection bridged to the web
 * apps on `/ws`. The model's audio goes to every web app as `{type:"voice", subtype:"audio",
 * session_id, audio}` (base64 int16 LE mono PCM at 24 kHz, the API's own format); the
 * microphone of the first web app that sends `voice_audio` for the session goes to the model.
 * Function calls run here, through the MCP tool registry's voice subset (`mcp.voice_tools`)
 * only; their results go back to the model and are never shown. A prompt's conversation may
 * also answer that one prompt. Every spoken turn is stored (voice_turns).
 *
 * It ends when nobody spoke for `idle_seconds`, after `max_minutes`, when the senior stops
 * it, when its prompt was answered elsewhere (or by voice, once the companion has said what
 * happens next), when no web app is left, or when the model goes away: always with a
 * `session_end` frame saying why, so the screen never waits on a dead conversation.
 */
import { randomUUID } from "node:crypto";
import type { ConverseRequest } from "../../../../vocabulary/voice";
import { isoNow } from "../../../platform/core/clock";
import type { Principal } from "../../../platform/auth/principal";
import type { CareContext } from "../../core/context";
import type { OccupancyBoard } from "../../../household/occupancy/occupancy.board";
import { respond } from "../../services/interactive/interactive.service";
import { ACTIONS } from "../../../household/prompts/prompts.store";
import { UnknownToolError, type ToolRegistry } from "../mcp/registry";
import { errorMessage, type RealtimeConnection, type RealtimeEvent, type RealtimeSettings } from "../../services/llm/realtime-client";
import { saveTurn } from "../../../household/voice-turns/voice-turns.store";
import { composeInstructions, openingMessage } from "./voice-instructions";
import type { Words } from "../../../platform/i18n/catalogs";
import { voiceDefaults } from "../../services/knowledge/voice/voice-defaults";

export const VOICE_SAMPLE_RATE = 24000;
export const ANSWER_TOOL = "respond_to_interactive_prompt";
/** A quiz conversation's tools (care/services/knowledge/delivery), for its own session only, whatever mcp.voice_tools says. */
export const QUIZ_TOOLS: readonly string[] = ["get_current_quiz_question", "submit_quiz_answer", "complete_quiz_session"];

/** Who the voice companion's tool calls run as: the voice subset (mcp.voice_tools) is what limits it. */
const VOICE_PRINCIPAL: Principal = { kind: "api", name: "voice companion", roles: [], isAdmin: false, patterns: ["*"] };

export interface SessionDeps {
  ctx: CareContext;
  tools: ToolRegistry;
  occupancy: OccupancyBoard;
  settings: RealtimeSettings;
  /** The senior's words: what the companion is told is in her language, so it speaks hers. */
  words: Words;
  onEnd: (session: VoiceSession) => void;
}

export interface SessionSummary {
  session_id: string;
  reason: ConverseRequest["reason"];
  model: string;
  started_at: string;
  ended_at: string | null;
  end_reason: string | null;
  execution_id: number | null;
  step_id: number | null;
}

interface PendingCall {
  call_id: string;
  output: Promise<string>;
}

export class VoiceSession {
  readonly id = `voice-${randomUUID()}`;
  readonly startedAt: string;
  endedAt: string | null = null;
  endReason: string | null = null;
  private prompt: ConverseRequest["prompt"] | null;
  private quiz: ConverseRequest["quiz"] | null;
  private listener: object | null = null;
  private responding = false;
  /** Openings waiting for the response in progress to finish. */
  private readonly queued: ConverseRequest[] = [];
  private calls: PendingCall[] = [];
  private lastUserWords = "";
  /** Our prompt was answered by voice: end once the companion has said what happens next. */
  private finishAfterResponse = false;
  private idleCancel: (() => void) | null = null;
  /** When the companion's audio sent so far ends playing at the tablet (ms on the app clock): silence is counted from then. */
  private speechUntil = 0;
  private readonly maxCancel: () => void;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: SessionDeps,
    private readonly connection: RealtimeConnection,
    readonly first: ConverseRequest,
  ) {
    const { ctx, settings } = deps;
    this.startedAt = isoNow(ctx.clock);
    this.prompt = first.prompt ?? null;
    this.quiz = first.quiz ?? null;
    connection.onEvent((event) => {
      try {
        this.onModelEvent(event);
      } catch (err) {
        ctx.log.error({ err, session_id: this.id, type: event.type }, "voice: a model event could not be handled");
      }
    });
    void connection.closed.then((why) => this.end(why));
    this.maxCancel = ctx.clock.at(ctx.clock.now() + settings.max_minutes * 60_000, () =>
      this.end(`the conversation reached its limit of ${settings.max_minutes} min`),
    );
    // Answered or ended on any instance (a chat answer may reach another one).
    const unsubscribePrompts = ctx.bus.subscribe("prompt.answered", (a) => this.onPromptAnswered(a), { otherInstances: true });
    const unsubscribeQuiz = ctx.bus.subscribe(
      "quiz.ended",
      (q) => {
        // The quiz this conversation runs ended (on screen, by voice or by its timeout): say goodbye, then end.
        if (this.quiz?.session_id === q.session_id) this.finishAfterResponse = true;
      },
      { otherInstances: true },
    );
    this.unsubscribe = () => {
      unsubscribePrompts();
      unsubscribeQuiz();
    };
  }

  get open(): boolean {
    return this.endedAt === null;
  }

  get model(): string {
    return this.deps.settings.model;
  }

  /** Configures the model (instructions, voice, tools) and says the opening; the web apps are told to listen. */
  begin(): number {
    this.configure();
    const clients = this.deps.ctx.webapp.broadcast({
      type: "voice",
      subtype: "session_start",
      session_id: this.id,
      sample_rate: VOICE_SAMPLE_RATE,
      reason: this.first.reason,
      ...(this.prompt ? { execution_id: this.prompt.execution_id, step_id: this.prompt.step_id } : {}),
    });
    this.say(this.first);
    this.touch();
    return clients;
  }

  /** Another notification or prompt while this conversation goes on: the companion says it next. */
  add(request: ConverseRequest): void {
    if (request.prompt || request.quiz) {
      this.prompt = request.prompt ?? this.prompt;
      this.quiz = request.quiz ?? this.quiz;
      this.configure();
    }
    if (this.responding) this.queued.push(request);
    else this.say(request);
    this.touch();
  }

  /** Microphone audio from a web app (base64 PCM); the first web app to send is the one listened to. */
  appendAudio(client: object, audio: string): boolean {
    if (!this.open) return false;
    this.listener ??= client;
    if (this.listener !== client) return false;
    this.connection.send({ type: "input_audio_buffer.append", audio });
    return true;
  }

  /** A web app that was listened to went away: the next one to send audio is listened to. */
  release(client: object): void {
    if (this.listener === client) this.listener = null;
  }

  end(reason: string): void {
    if (!this.open) return;
    const { ctx } = this.deps;
    this.endedAt = isoNow(ctx.clock);
    this.endReason = reason;
    this.idleCancel?.();
    this.maxCancel();
    this.unsubscribe();
    this.connection.close(reason);
    ctx.webapp.broadcast({ type: "voice", subtype: "session_end", session_id: this.id, reason });
    ctx.log.info({ session_id: this.id, reason }, "voice: conversation ended");
    this.deps.onEnd(this);
  }

  summary(): SessionSummary {
    return {
      session_id: this.id,
      reason: this.first.reason,
      model: this.model,
      started_at: this.startedAt,
      ended_at: this.endedAt,
      end_reason: this.endReason,
      execution_id: this.prompt?.execution_id ?? null,
      step_id: this.prompt?.step_id ?? null,
    };
  }

  // ---- the model's side ------------------------------------------------------------------

  private configure(): void {
    const { settings, tools } = this.deps;
    const functions = tools.list("voice").map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.inputSchema }));
    if (this.prompt && !functions.some((f) => f.name === ANSWER_TOOL)) functions.push(answerFunction(this.prompt));
    if (this.quiz)
      for (const t of tools.list("all"))
        if (QUIZ_TOOLS.includes(t.name) && !functions.some((f) => f.name === t.name))
          functions.push({ type: "function", name: t.name, description: t.description, parameters: t.inputSchema });
    this.connection.send({
      type: "session.update",
      session: {
        instructions: composeInstructions(
          settings.instructions,
          this.first.instruction,
          this.deps.ctx.settings.app.name,
          { default: this.prompt ? voiceDefaults(this.deps.ctx.settings, this.deps.words).interactive_prompt_default : null },
          this.deps.words,
        ),
        voice: settings.voice,
        modalities: ["audio", "text"],
        input_audio_format: "pcm16",
        output_audio_format: "pcm16",
        input_audio_transcription: { model: settings.transcription_model },
        turn_detection: { type: "server_vad", silence_duration_ms: 600 },
        tools: functions,
        tool_choice: "auto",
      },
    });
  }

  private say(request: ConverseRequest): void {
    const opening = openingMessage(request, this.deps.words);
    if (opening)
      this.connection.send({ type: "conversation.item.create", item: { type: "message", role: "system", content: [{ type: "input_text", text: opening }] } });
    this.responding = true;
    this.connection.send({ type: "response.create" });
  }

  private onModelEvent(event: RealtimeEvent): void {
    const { ctx } = this.deps;
    switch (event.type) {
      case "response.created":
        this.responding = true;
        return;
      case "response.audio.delta":
        if (typeof event.delta === "string") {
          ctx.webapp.broadcast({ type: "voice", subtype: "audio", session_id: this.id, audio: event.delta });
          // base64 → bytes → int16 samples at 24 kHz: how long this piece plays.
          const ms = ((event.delta.length * 3) / 4 / 2 / VOICE_SAMPLE_RATE) * 1000;
          this.speechUntil = Math.max(this.speechUntil, ctx.clock.now()) + ms;
        }
        return this.touch();
      case "response.audio_transcript.done":
        return this.turn("assistant", String(event.transcript ?? ""));
      case "conversation.item.input_audio_transcription.completed":
        this.lastUserWords = String(event.transcript ?? "");
        return this.turn("user", this.lastUserWords);
      case "input_audio_buffer.speech_started":
        // The senior talks over the companion: the web app stops playing what is queued.
        ctx.webapp.broadcast({ type: "voice", subtype: "interrupt", session_id: this.id });
        return this.touch();
      case "response.function_call_arguments.done":
        this.calls.push({ call_id: String(event.call_id), output: this.runTool(String(event.name), String(event.arguments ?? "{}")) });
        return this.touch();
      case "response.done":
        void this.afterResponse(event);
        return;
      case "error":
        ctx.log.warn({ session_id: this.id, error: errorMessage(event) }, "voice: the model reported an error");
        return;
      default:
        return;
    }
  }

  /** A response finished: its function calls' outputs go back and the model continues; else the next opening, or the end. */
  private async afterResponse(event: RealtimeEvent): Promise<void> {
    const calls = this.calls;
    this.calls = [];
    this.touch();
    if (calls.length) {
      for (const c of calls) {
        const output = await c.output;
        this.connection.send({ type: "conversation.item.create", item: { type: "function_call_output", call_id: c.call_id, output } });
      }
      if (this.open) this.connection.send({ type: "response.create" });
      return;
    }
    this.responding = false;
    const status = (event.response as { status?: string } | undefined)?.status;
    if (this.finishAfterResponse && status !== "cancelled") return this.end("the prompt was answered by voice");
    const next = this.queued.shift();
    if (next) this.say(next);
  }

  private turn(role: "user" | "assistant", text: string): void {
    const { ctx } = this.deps;
    if (!text.trim()) return;
    ctx.webapp.broadcast({ type: "voice", subtype: "transcript", session_id: this.id, role, text });
    this.touch();
    saveTurn(ctx.db, {
      session_id: this.id,
      role,
      text,
      at: isoNow(ctx.clock),
      reason: this.first.reason,
      execution_id: this.prompt?.execution_id ?? null,
      step_id: this.prompt?.step_id ?? null,
    }).catch((err: unknown) => ctx.log.error({ err, session_id: this.id }, "voice: a turn could not be stored"));
  }

  /** Runs a function call; the answer is the JSON the model reads (an `error` when refused). */
  private async runTool(name: string, argsJson: string): Promise<string> {
    const { ctx, tools, occupancy } = this.deps;
    let args: unknown;
    try {
      args = JSON.parse(argsJson || "{}");
    } catch {
      return JSON.stringify({ error: `the arguments of ${name} are not JSON` });
    }
    if (name === ANSWER_TOOL) return this.answerPrompt(args);
    // The quiz tools act on this conversation's quiz session only, whatever id the model says.
    const quizCall = this.quiz && QUIZ_TOOLS.includes(name);
    if (quizCall) args = { ...(typeof args === "object" && args !== null ? args : {}), session_id: this.quiz!.session_id };
    try {
      const set = quizCall ? "all" : "voice";
      const outcome = await tools.call({ ctx, occupancy }, VOICE_PRINCIPAL, name, args, set, { transport: "voice", session_id: this.id });
      return JSON.stringify(outcome.ok ? outcome.value : { error: outcome.message });
    } catch (err) {
      if (err instanceof UnknownToolError) {
        ctx.log.warn({ session_id: this.id, tool: name }, "voice: the model called a tool the voice companion may not use");
        return JSON.stringify({ error: `${name} is not available to the voice companion` });
      }
      ctx.log.error({ err, session_id: this.id, tool: name }, "voice: a tool failed");
      return JSON.stringify({ error: `${name} failed` });
    }
  }

  /** The prompt this conversation asks, answered with what the senior said; no other prompt can be. */
  private async answerPrompt(args: unknown): Promise<string> {
    const prompt = this.prompt;
    if (!prompt) return JSON.stringify({ error: "no question is waiting for an answer in this conversation" });
    const action = (args as { action?: unknown } | null)?.action;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number])) return JSON.stringify({ error: `action must be one of ${ACTIONS.join(", ")}` });
    const result = await respond(
      this.deps.ctx,
      {
        execution_id: prompt.execution_id,
        step_id: prompt.step_id,
        channel: "pwa_realtime_ai",
        action,
        raw_response: { said: this.lastUserWords, session_id: this.id },
      },
      VOICE_PRINCIPAL.name,
    );
    return JSON.stringify(result);
  }

  private onPromptAnswered(a: { execution_id: number; step_id: number; channel: string }): void {
    if (!this.prompt || a.execution_id !== this.prompt.execution_id || a.step_id !== this.prompt.step_id) return;
    if (a.channel === "pwa_realtime_ai") {
      this.finishAfterResponse = true;
      return;
    }
    // Answered on the screen, in the chat or by the countdown: the question is settled, the companion stops asking.
    this.connection.send({ type: "response.cancel" });
    this.end(a.channel === "timeout" ? "the prompt's countdown ran out" : `the prompt was answered elsewhere (${a.channel})`);
  }

  /**
   * Something happened: the idle countdown starts again, from when the companion's words end
   * playing (a long answer is not cut short). A tool still running holds it; a response that
   * never finishes does not (a stalled model must not keep the microphone open).
   */
  private touch(): void {
    const { ctx, settings } = this.deps;
    if (!this.open) return;
    this.idleCancel?.();
    const from = Math.max(ctx.clock.now(), this.speechUntil);
    this.idleCancel = ctx.clock.at(from + settings.idle_seconds * 1000, () => {
      if (this.calls.length) return this.touch();
      this.end(`nobody spoke for ${settings.idle_seconds} s`);
    });
  }
}

/** The prompt's own answer tool: the run and step are the conversation's, the model says only which. */
function answerFunction(prompt: NonNullable<ConverseRequest["prompt"]>): {
  type: string;
  name: string;
  description: string;
  parameters: { type: "object"; [k: string]: unknown };
} {
  return {
    type: "function",
    name: ANSWER_TOOL,
    description: `Record the senior's answer to the question you asked. "dismiss" when they are fine (like "${prompt.dismiss_text}"), "escalate" when they need help or you are unsure they are well (like "${prompt.escalate_text}").`,
    parameters: { type: "object", properties: { action: { type: "string", enum: [...ACTIONS] } }, required: ["action"], additionalProperties: false },
  };
}
