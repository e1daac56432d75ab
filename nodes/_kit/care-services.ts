/**
 * The services a handler may use, one small interface per capability. `runtime/` implements
 * them in one place (`runtime/care-services.ts`) by delegating to its own services;
 * handler tests pass a fake (`test/nodes/fake-services.ts`). Handlers import this file and
 * the rest of `nodes/_kit/`, never `runtime/` or Node-RED, so the node folders stand under
 * the app rather than between its layers.
 *
 * Only what a handler uses today is here. A new capability is a new sub-interface here and
 * its implementation next to the others in `runtime/care-services.ts`.
 */
import type { DeliveryReceipt, StepInput, StepResult } from "./step-data";
import type { LocalParts, LocalTime } from "./values";

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

export type PresenceStatus = "present_room" | "present_home" | "asleep" | "away" | "stale" | "unknown";
export type HomeState = "at_home" | "asleep" | "away" | "state_unknown";

export interface PersonLocation {
  person_id: string;
  /** Both null: the person was last seen leaving the home. */
  room_id: string | null;
  room_name: string | null;
  source: string;
  confidence: number;
  updated_at: string;
}

export interface Presence {
  status: PresenceStatus;
  person_id: string | null;
  room_id: string | null;
  room_name: string | null;
  dwell_minutes: number | null;
  confidence: number;
  providers: string[];
  timestamp: string | null;
  location: PersonLocation | null;
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

export interface Activity {
  id: number;
  timestamp: string;
  activity_type: string;
  person_id: string | null;
  room_name: string | null;
  confidence: number;
  metadata_json: Record<string, unknown>;
  rule_id: number | null;
  execution_id: number | null;
}

/** The activity log. */
export interface ActivityServices {
  record(activity: Omit<Activity, "id">): Promise<Activity>;
  /** Newest first, `since <= timestamp <= until`; a null person means everyone. */
  between(q: { since: string; until: string; person_id?: string | null }): Promise<Activity[]>;
}

export interface DementiaSignal {
  id: number;
  signal_id: string;
  person_id: string;
  kind: string;
  severity: string;
  details: Record<string, unknown>;
  started_at: string | null;
  acknowledged_at: string | null;
  /** Who acknowledged it (a key's name, a chat user) and what they said. */
  acknowledged_by: string | null;
  feedback: string | null;
  created_at: string;
}

/** Every field narrows; an absent or empty list does not. Ranges include both ends. */
export interface SignalQuery {
  signal_id?: string;
  id?: number;
  limit?: number;
  kinds?: readonly string[];
  person_ids?: readonly string[];
  unacknowledged?: boolean;
  acknowledged_between?: readonly [string, string];
  created_between?: readonly [string, string];
}

/** Dementia signals from continuous tracking, and the people's alert profiles. */
export interface SignalServices {
  find(q: SignalQuery): Promise<DementiaSignal[]>;
  /** The signals their person's alert profile lets alert (kind enabled, severity high enough; no profile lets all). */
  allowedByProfile(signals: readonly DementiaSignal[]): Promise<DementiaSignal[]>;
}

export interface RoomTransition {
  id: number;
  person_id: string;
  person_name: string | null;
  sensor_id: string | null;
  /** left-to-right, towards-camera, ... as the camera reported it. */
  direction_raw: string | null;
  /** entering, exiting, approaching_exit, entering_depth or stationary. */
  semantic: string | null;
  from_room_id: string | null;
  from_room_name: string | null;
  to_room_id: string | null;
  to_room_name: string | null;
  confidence: number;
  timestamp: string;
}

export interface RoomTrend {
  room_id: string;
  room_name: string | null;
  overall_severity: string;
  clutter_score: number | null;
  trend_direction: string | null;
  updated_at: string;
}

/** Movement between rooms and the rooms' object trends. */
export interface TrackingWindowQuery {
  since: string;
  until: string;
  sample_period_s: number;
  cameras: readonly string[];
  rooms: readonly string[];
  max_frames: number;
}

export interface TrackingWindowFrame {
  frame_time: string;
  camera_id: string;
  room_name: string | null;
  detections: Array<{ ph_id: string; identity_id: string | null; confidence: number; posture: string | null; bbox: Record<string, number> | null }>;
  identities: string[];
}

export interface TrackingWindow {
  frames: TrackingWindowFrame[];
  /** True when more frames than max_frames were in the window and some were left out. */
  trimmed: boolean;
}

export interface TrackingServices {
  /** Newest first. */
  transitions(q: { person_id: string; since: string; until: string }): Promise<RoomTransition[]>;
  roomTrends(): Promise<RoomTrend[]>;
  /** Continuous-tracking frames, one per camera and sample period; null when continuous tracking is off. */
  window(q: TrackingWindowQuery): Promise<TrackingWindow | null>;
}

/** The notification step's config as the notify service reads it: level, channels, templates, channel options. */
export type NotificationRequest = Data & { alert_level: string; channels?: string[]; message_template?: string };

export interface NotificationSent {
  /** One per channel, in the send's channel order. */
  receipts: DeliveryReceipt[];
  /** What each channel said. */
  messages: Record<string, string>;
  /** Each channel's name for people ("Tablet popup"), for the step's warning. */
  names: Record<string, string>;
}

/** Sends a notification through its channels and raises the alert a warning or an emergency carries. */
export interface NotifyServices {
  send(input: StepInput, config: NotificationRequest, signal: AbortSignal): Promise<NotificationSent>;
}

export interface NewPrompt {
  execution_id: number;
  step_id: number;
  rule_id: number;
  message: string;
  output_key: string;
  timeout_action: "escalate" | "dismiss";
  auto_escalate: boolean;
  expires_at: string;
  created_at: string;
  /** The frame's texts, kept so a web app that connects while the prompt is open is shown it. */
  title: string;
  /** As rendered; "" for a voice-only prompt. */
  popup_message: string;
  voice_prompt: string | null;
  voice_instruction: string | null;
  escalate_button_text: string;
  dismiss_button_text: string;
}

/** Interactive prompts awaiting an answer. */
export interface PromptServices {
  /** Recorded before it is broadcast, so any answer finds it. */
  record(prompt: NewPrompt): Promise<void>;
}

export interface WebAppFrame {
  type: string;
  [k: string]: unknown;
}

/** Something to say in the web app (the `announcement` channel). */
export interface AnnounceRequest {
  text: string;
  /** `stream`: PCM frames while the speech is made; `file`: a link to a stored clip. */
  mode: "stream" | "file";
  voice?: string;
  language?: string;
  model?: string;
  speed?: number;
}

export interface Announced {
  mode: "stream" | "file";
  /** Web app clients that were sent it. */
  clients: number;
  /** Audio bytes sent (PCM) or stored (the clip). */
  bytes: number;
  sample_rate?: number;
  /** File mode: the clip's signed URL. */
  url?: string;
}

/** Why the web app's channels could not deliver: nobody is there to see or hear it. */
export const NO_WEB_APP = "no tablet has the care app open";

/** Why the voice companion cannot talk: the household has no realtime voice model (`llm.realtime`). */
export const NO_VOICE_MODEL = "no voice model is set up for the voice companion";

/** A conversation for the voice companion to start (or to add to the one going on). */
export interface ConverseRequest {
  /** What started it: a notification, an interactive prompt, the senior (Talk), the REST API. */
  reason: "notification" | "prompt" | "senior" | "api";
  /** What the companion should tell or ask first; none: it greets and listens. */
  text: string | null;
  /** How to speak (the step's voice_instruction); added to the base instruction. */
  instruction: string | null;
  /** The prompt this conversation asks: the companion may answer it (respond_to_interactive_prompt) for this run and step only. */
  prompt?: { execution_id: number; step_id: number; dismiss_text: string; escalate_text: string };
  /** The quiz session this conversation runs: the companion gets the quiz tools for it (and only it). */
  quiz?: { session_id: number };
}

export interface Conversing {
  session_id: string;
  model: string;
  /** Web app clients it talks in. */
  clients: number;
  /** True when it was added to a conversation already going on. */
  joined: boolean;
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

/** The llm_call config (and the legacy model steps', which share it). */
export interface ModelStepConfig {
  model_id: string;
  output_key: string;
  hallucination_marker?: string;
  prompt: string;
  special_instructions?: string;
  include_context: string[];
  response_format: "text" | "json_schema" | "json_free";
  response_schema?: string;
  response_json_schema?: string;
  image_source: "none" | "trigger" | "additional" | "both";
  max_images: number;
  additional_sensor_ids: string[];
  additional_room_names: string[];
  images_per_sensor: number;
  sort_by_sensor_then_time: boolean;
  image_time_filter?: { since_minutes?: number; time_start?: string; time_end?: string };
}

/** The registry's language models. */
export interface ModelServices {
  /** Prompt and images built, the model asked (retrying on the marker), the answer parsed; throws on failure. */
  runStep(input: StepInput, config: ModelStepConfig, signal: AbortSignal): Promise<StepResult>;
}

export interface EinkRenderRequest {
  text?: string;
  template_id?: number;
  template?: string;
  sensor_ids?: string[];
  expires_in_minutes?: number;
  color_mode?: "rgb" | "bw_dither";
  /** A notification's level: the card's `title` and `footer` regions then say it and the time, in the senior's language. */
  alert_level?: string;
}

/** The e-ink displays. */
export interface EinkServices {
  /** Renders and makes the card the displays' active image; throws when refused (unknown display or template). */
  render(request: EinkRenderRequest): Promise<{ sensor_ids: string[]; expires_at: string }>;
}

/**
 * What an external service gave: a value, or why there is none (disabled, unreachable, timed
 * out, an answer that could not be read). Perception steps degrade on the second and say why.
 */
export type ServiceAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** A camera frame in the media store, with a URL a chat server or a speaker can fetch it by. */
export interface CameraFrame {
  media_id: number;
  sensor_id: string;
  room_name: string | null;
  /** ISO-8601 UTC. */
  captured_at: string;
  /** Relative to the data dir: what a trigger's `media_paths` carry. */
  path: string;
  /** Signed and expiring (`media.signed_url_ttl_seconds`); it needs no API key. */
  url: string;
  labels: string[];
}

export interface RecentFramesQuery {
  /** Cameras by id: their frames wherever they were taken. */
  sensor_ids: readonly string[];
  /** And the frames other cameras took in these rooms (any case or spelling). Both empty: every camera. */
  room_names: readonly string[];
  /** Inclusive ISO-8601 bounds on the capture time. */
  since: string;
  until: string;
  /** The newest this many frames of each camera… */
  per_sensor: number;
  /** …or this many for the cameras named here (0: none). */
  sensor_limits: Readonly<Record<string, number>>;
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

export interface SceneDetection {
  label: string;
  confidence: number;
  /** [x1, y1, x2, y2] */
  bbox: number[];
  class_id: number;
}

export interface SceneHazard {
  name: string;
  severity: string;
  description: string;
  detection: SceneDetection;
}

/** One image's analysis by the scene-analysis service. */
export interface SceneAnalysis {
  detections: SceneDetection[];
  description: string;
  embedding: number[];
  hazards: SceneHazard[];
  detector_available: boolean;
  describer_available: boolean;
  embedder_available: boolean;
}

export interface SceneAnalysisRequest {
  run_detect: boolean;
  run_describe: boolean;
  run_embed: boolean;
  run_hazards: boolean;
  /** The camera the image came from, for the service's own correlation. */
  sensor_id?: string | null;
}

/** The scene-analysis service (`scene_analysis.*` settings). */
export interface SceneServices {
  analyze(image: Uint8Array, request: SceneAnalysisRequest, signal: AbortSignal): Promise<ServiceAnswer<SceneAnalysis>>;
}

/** A room's current object-trend state in semantic memory. */
export interface MemoryRoomTrend {
  room_id: string;
  room_name: string | null;
  clutter_score: number;
  trend_direction: string;
  overall_severity: string;
  persistent_objects: string[];
  novel_objects: string[];
  anomalies: Array<Record<string, unknown>>;
}

export interface MemoryTrendSnapshot {
  period_start: string | null;
  unique_object_count: number;
  object_counts: Record<string, number>;
  persistent_objects: string[];
  novel_objects: string[];
  embedding_variance: number;
}

export interface MemoryObject {
  label: string;
  observation_count: number;
  last_seen_at: string | null;
  confidence?: number;
}

export interface MemoryObservation {
  id: number;
  room_id: string;
  observed_at: string | null;
  description: string;
  object_list: string[];
  hazard_flags: string[];
  text_similarity: number;
  image_similarity: number;
  confidence?: number;
}

export interface ObservationSearch {
  room_id: string | null;
  since_minutes: number;
  limit: number;
  min_confidence: number;
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

export interface HubCall {
  domain: string;
  service: string;
  entity_id: string | null;
  data: Record<string, unknown>;
}

export interface SpeechRequest {
  text: string;
  /** The speaker; null: the room's speaker (`hub.speakers`), else `hub.media_player`. */
  media_player: string | null;
  /** The room to speak in when no speaker is named. */
  room_name: string | null;
  voice?: string;
  language?: string;
  model?: string;
  speed?: number;
}

export interface HubWeather {
  state: string;
  temperature: number | null;
  temperature_unit: string | null;
  humidity: number | null;
  wind_speed: number | null;
  wind_speed_unit: string | null;
  forecast: Array<Record<string, unknown>>;
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

export interface IdentifyRequest {
  /** The frames, relative to the data dir (a trigger's `media_paths`), in the order taken. */
  media_paths: readonly string[];
  sensor_id: string | null;
  room_name: string | null;
  /** Default `recognition.threshold`. */
  threshold?: number;
  /** Only these persons are reported. */
  target_persons?: readonly string[];
  include_annotated_image: boolean;
  include_motion: boolean;
}

export interface PersonDetection {
  /** The person's name, or `unknown`. */
  identity: string;
  confidence: number;
  /** [x1, y1, x2, y2] */
  bbox: number[];
  person_id: string | null;
  name: string | null;
  /** An unknown face's stable id (`visitor-3`). */
  visitor_id: string | null;
  media_path: string;
  direction_raw: string | null;
  direction_semantic: string | null;
}

/** A room change read from a face's motion through the camera's movement_map. */
export interface RoomTransitionSeen {
  person_id: string;
  person_name: string | null;
  sensor_id: string | null;
  direction_raw: string;
  semantic: string;
  from_room_id: string | null;
  from_room_name: string | null;
  to_room_id: string | null;
  to_room_name: string | null;
  confidence: number;
}

export interface IdentifiedFrames {
  person_detections: PersonDetection[];
  /** Media paths of the annotated frames. */
  annotated_images: string[];
  room_transitions: RoomTransitionSeen[];
  /** Frames that could not be read or annotated, with why. */
  skipped: string[];
  backend: string;
}

/**
 * Face identification (`recognition.*`): the built-in engine or the household's service.
 * Every face identified (a person or a visitor) is published as a sighting.
 */
export interface IdentityServices {
  identify(request: IdentifyRequest, signal: AbortSignal): Promise<ServiceAnswer<IdentifiedFrames>>;
}

/** A chat the family reads (`notifications.chat_app.targets`). */
export interface ChatTarget {
  name: string;
  chat_id: string | number;
  /** Levels sent to this chat; empty = all. */
  alert_levels: readonly string[];
  /** The language the bot speaks in this chat (BCP 47); not set: the household's. */
  language?: string;
}

export interface ChatSendRequest {
  /** The targets whose levels include this one (the handler chose them). */
  targets: readonly ChatTarget[];
  text: string;
  /** The triggering frame's bytes; the service scales it to `max_image_side`. */
  photo: Uint8Array | null;
  max_image_side: number;
  alert_level: string;
  /** With an alert the message carries the "I'm on it" / "Resolved" buttons and can be acknowledged by reply. */
  alert_id: number | null;
  /** 0: the first send; n: the alert's n-th re-send (the escalation ladder widens the targets). */
  escalation: number;
}

export interface ChatSendResult {
  target: string;
  delivered: boolean;
  detail: string;
}

/** The family's chat app (the chat service's Bot API). */
export interface ChatServices {
  /** One result per target actually sent to; not ok when no bot is configured. */
  send(request: ChatSendRequest, signal: AbortSignal): Promise<ServiceAnswer<ChatSendResult[]>>;
}

/** Where an info card goes: the web app's screen, the e-ink displays, the voice companion. */
export type CardChannel = "pwa" | "eink" | "voice";

export interface CardDeliveryRequest {
  card_id: number;
  channels: readonly CardChannel[];
  /** E-ink sensor ids; empty: the displays the notification step would pick. */
  eink_targets: readonly string[];
  eink_expiry_minutes: number;
  /** Overrides the card's own voice instruction. */
  voice_instruction: string | null;
  rule_id: number | null;
  execution_id: number | null;
  step_id: number | null;
}

export interface CardDelivered {
  delivery_id: number;
  card_title: string;
  /** One per channel asked for, in the request's order. */
  receipts: DeliveryReceipt[];
}

export interface QuizStartRequest {
  quiz_id: number;
  /** The person quizzed; null: the household's one senior. */
  senior_id: string | null;
  /** Minutes: the same quiz run for this senior within them is not started again (0: never skipped). */
  dedupe_minutes: number;
  /** Minutes an unanswered session stays open. */
  timeout_minutes: number;
  voice_instruction: string | null;
  rule_id: number | null;
  execution_id: number | null;
  step_id: number | null;
}

export type QuizStarted =
  | {
      started: true;
      session_id: number;
      quiz_title: string;
      question_count: number;
      /** ISO-8601: when an unanswered session times out. */
      expires_at: string;
      /** What is left in the run's data while it waits (and if it times out). */
      timed_out_data: Record<string, unknown>;
      /** Web app clients shown the first question. */
      clients: number;
      /** How the voice companion took part (or why it did not). */
      voice: string;
    }
  | { started: false; reason: string; previous_session_id: number; previous_started_at: string };

/** The knowledge repository's delivery to the senior: cards and quizzes (care/knowledge/delivery). */
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
