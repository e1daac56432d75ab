/**
 * The services a handler may use, one small interface per capability. `runtime/` implements
 * them in one place (`runtime/care/services/care-services.ts`) by delegating to its own services;
 * handler tests pass a fake (`test/nodes/fake-services.ts`). Handlers import this file and
 * the rest of `nodes/_kit/`, never `runtime/` or Node-RED, so the node folders stand under
 * the app rather than between its layers.
 *
 * Only what a handler uses today is here. A new capability is a new sub-interface here and
 * its implementation next to the others in `runtime/care/services/care-services.ts`. What the
 * services take and give (a presence, a camera frame, a chat target) is the household's
 * vocabulary, in `vocabulary/`, which every layer imports; only the interfaces are here.
 */
import type { StepInput, StepResult } from "./step-data";
import type { LocalParts, LocalTime } from "./values";
import type { Activity } from "../../vocabulary/activities";
import type { ServiceAnswer } from "../../vocabulary/answers";
import type { ChatSendRequest, ChatSendResult } from "../../vocabulary/chat";
import type { EinkRenderRequest } from "../../vocabulary/eink";
import type { CameraFrame, RecentFramesQuery } from "../../vocabulary/frames";
import type { HubCall, HubWeather, SpeechRequest } from "../../vocabulary/hub";
import type { IdentifiedFrames, IdentifyRequest } from "../../vocabulary/identity";
import type { CardDelivered, CardDeliveryRequest, QuizStartRequest, QuizStarted } from "../../vocabulary/knowledge";
import type { MemoryObject, MemoryObservation, MemoryRoomTrend, MemoryTrendSnapshot, ObservationSearch } from "../../vocabulary/memory";
import type { ModelStepConfig } from "../../vocabulary/models";
import type { NotificationRequest, NotificationSent } from "../../vocabulary/notifications";
import type { HomeState, PersonLocation, Presence, PresenceStatus } from "../../vocabulary/presence";
import type { NewPrompt } from "../../vocabulary/prompts";
import type { SceneAnalysis, SceneAnalysisRequest } from "../../vocabulary/scenes";
import type { AnnounceRequest, Announced, WebAppFrame } from "../../vocabulary/tablet";
import type { DementiaSignal, RoomTransition, RoomTrend, SignalQuery, TrackingWindow, TrackingWindowQuery } from "../../vocabulary/tracking";
import type { ConverseRequest, Conversing } from "../../vocabulary/voice";

type Data = Readonly<Record<string, unknown>>;

/** Names a person types (rooms, activity types) compared by the store's one name key. */
export interface NameServices {
  /** Same name in any case or Unicode spelling, blanks around ignored; a missing name matches nothing. */
  same(a: string | null | undefined, b: string | null | undefined): boolean;
}

/** The household's wall clock (`app.timezone`); instants are epoch milliseconds from `ctx.clock`. */
export interface TimeServices {
  /** The IANA zone the household lives in. */
  zone(): string;
  localParts(epochMs: number): LocalParts;
  /** The instant the local day of `epochMs` began. */
  startOfLocalDay(epochMs: number): number;
  /** The wall-clock time in an ISO-8601 date-time or `HH:MM[:SS]`; null when there is none. */
  timeOfDay(text: string): LocalTime | null;
  /** A daily window placed on today's local calendar (one spanning midnight is the latest night). */
  dailyWindow(start: LocalTime, end: LocalTime, nowMs: number): { from: number; to: number };
}

/** `{{path}}` templates over pipeline_data. */
export interface TemplateServices {
  render(template: string, data: Data): string;
}

export type CompiledExpression = { readonly ok: true; evaluate(data: Data): boolean } | { readonly ok: false };

/** The condition language. */
export interface ConditionServices {
  /** Compiled once and cached; a syntax error is `{ok: false}`. */
  compile(expression: string): CompiledExpression;
  /** The value at a dotted path (`a.b.0.c`) of pipeline_data; null when absent. */
  resolvePath(data: Data, path: string): unknown;
}

/** Where a person is. */
export interface PresenceServices {
  /** The presence chain, stale after `person_tracking.stale_timeout_minutes`. */
  resolve(personId: string | null, nowMs: number): Promise<Presence>;
  /** The answer when nothing is known (also when the store cannot be read). */
  unknown(personId: string | null): Presence;
  /** The configured person, else the first detected one, else `person_id` in pipeline_data. */
  personIdFrom(configured: string | undefined, data: Data): string | null;
  homeStates(status: PresenceStatus | null): Record<HomeState, boolean>;
  /** The stored location as the tracking sources last set it, fresh or not. */
  location(personId: string): Promise<PersonLocation | null>;
}

/** The activity log. */
export interface ActivityServices {
  record(activity: Omit<Activity, "id">): Promise<Activity>;
  /** Newest first, `since <= timestamp <= until`; a null person means everyone. */
  between(q: { since: string; until: string; person_id?: string | null }): Promise<Activity[]>;
}

/** Dementia signals from continuous tracking, and the people's alert profiles. */
export interface SignalServices {
  find(q: SignalQuery): Promise<DementiaSignal[]>;
  /** The signals their person's alert profile lets alert (kind enabled, severity high enough; no profile lets all). */
  allowedByProfile(signals: readonly DementiaSignal[]): Promise<DementiaSignal[]>;
}

export interface TrackingServices {
  /** Newest first. */
  transitions(q: { person_id: string; since: string; until: string }): Promise<RoomTransition[]>;
  roomTrends(): Promise<RoomTrend[]>;
  /** Continuous-tracking frames, one per camera and sample period; null when continuous tracking is off. */
  window(q: TrackingWindowQuery): Promise<TrackingWindow | null>;
}

/** Sends a notification through its channels and raises the alert a warning or an emergency carries. */
export interface NotifyServices {
  send(input: StepInput, config: NotificationRequest, signal: AbortSignal): Promise<NotificationSent>;
}

/** Interactive prompts awaiting an answer. */
export interface PromptServices {
  /** Recorded before it is broadcast, so any answer finds it. */
  record(prompt: NewPrompt): Promise<void>;
}

/** The web app's socket (`/ws`). */
export interface WebAppServices {
  /** How many clients were sent the frame. */
  broadcast(frame: WebAppFrame): number;
  /** Speaks the text in every connected web app with the household's TTS service. */
  announce(request: AnnounceRequest, signal: AbortSignal): Promise<ServiceAnswer<Announced>>;
  /** Whether a realtime voice model is configured (`llm.realtime`) for the voice companion. */
  realtimeConfigured(): boolean;
  /** Has the voice companion talk with the senior in the web app (a realtime model must be configured). */
  converse(request: ConverseRequest, signal: AbortSignal): Promise<ServiceAnswer<Conversing>>;
}

/** The registry's language models. */
export interface ModelServices {
  /** Prompt and images built, the model asked (retrying on the marker), the answer parsed; throws on failure. */
  runStep(input: StepInput, config: ModelStepConfig, signal: AbortSignal): Promise<StepResult>;
}

/** The e-ink displays. */
export interface EinkServices {
  /** Renders and makes the card the displays' active image; throws when refused (unknown display or template). */
  render(request: EinkRenderRequest): Promise<{ sensor_ids: string[]; expires_at: string }>;
}

/** The media store (camera frames): files by their path relative to the data dir, and the camera media cache. */
export interface MediaServices {
  /** The file's bytes; null when it is missing, unreadable or outside the media store. */
  read(path: string): Promise<Uint8Array | null>;
  /**
   * Each camera's newest frames in the span, newest first; cameras in `sensor_ids` order, then
   * the others by id. Never a frame older than the store keeps them. Not ok while the event
   * aggregator, whose cache this is, is off.
   */
  recentFrames(query: RecentFramesQuery): Promise<ServiceAnswer<CameraFrame[]>>;
}

/** The scene-analysis service (`scene_analysis.*` settings). */
export interface SceneServices {
  analyze(image: Uint8Array, request: SceneAnalysisRequest, signal: AbortSignal): Promise<ServiceAnswer<SceneAnalysis>>;
}

/** The semantic-memory service (`semantic_memory.*` settings). */
export interface MemoryServices {
  /** The room's current trend; null when memory has none for it. */
  roomTrend(roomId: string, signal: AbortSignal): Promise<ServiceAnswer<MemoryRoomTrend | null>>;
  /** Hourly snapshots of the last `sinceHours`. */
  snapshots(roomId: string, sinceHours: number, signal: AbortSignal): Promise<ServiceAnswer<MemoryTrendSnapshot[]>>;
  /** Objects seen in the room in the last `sinceMinutes`. */
  recentObjects(roomId: string, sinceMinutes: number, signal: AbortSignal): Promise<ServiceAnswer<MemoryObject[]>>;
  searchObservations(query: ObservationSearch, signal: AbortSignal): Promise<ServiceAnswer<MemoryObservation[]>>;
}

/** The home hub (`hub.*` settings): its services, its speakers and its weather. */
export interface HubServices {
  /** Calls a hub service; refused outside `hub.allowed_services`, or when there is no hub. */
  call(request: HubCall, signal: AbortSignal): Promise<ServiceAnswer<{ response: unknown }>>;
  /** Synthesises the text with the household's TTS service and plays it on a hub speaker. */
  speak(request: SpeechRequest, signal: AbortSignal): Promise<ServiceAnswer<{ media_player: string; url: string }>>;
  /** The hub's weather entity (`hub.weather_entity`) as last reported. */
  weather(): ServiceAnswer<HubWeather>;
}

/**
 * Face identification (`recognition.*`): the built-in engine or the household's service.
 * Every face identified (a person or a visitor) is published as a sighting.
 */
export interface IdentityServices {
  identify(request: IdentifyRequest, signal: AbortSignal): Promise<ServiceAnswer<IdentifiedFrames>>;
}

/** The family's chat app (the chat service's Bot API). */
export interface ChatServices {
  /** One result per target actually sent to; not ok when no bot is configured. */
  send(request: ChatSendRequest, signal: AbortSignal): Promise<ServiceAnswer<ChatSendResult[]>>;
}

/** The knowledge repository's delivery to the senior: cards and quizzes (care/services/knowledge/delivery). */
export interface KnowledgeServices {
  /** Delivers an approved card on each channel and records it; throws when the card is unknown or not approved. */
  deliverCard(request: CardDeliveryRequest, signal: AbortSignal): Promise<CardDelivered>;
  /** Starts a quiz session on the web app, unless the dedupe window says it ran already; throws when the quiz cannot be run. */
  startQuiz(request: QuizStartRequest, signal: AbortSignal): Promise<QuizStarted>;
}

export interface CareServices {
  names: NameServices;
  time: TimeServices;
  templates: TemplateServices;
  conditions: ConditionServices;
  presence: PresenceServices;
  activities: ActivityServices;
  signals: SignalServices;
  tracking: TrackingServices;
  notify: NotifyServices;
  prompts: PromptServices;
  webapp: WebAppServices;
  models: ModelServices;
  eink: EinkServices;
  media: MediaServices;
  scene: SceneServices;
  memory: MemoryServices;
  hub: HubServices;
  identity: IdentityServices;
  chat: ChatServices;
  knowledge: KnowledgeServices;
}
