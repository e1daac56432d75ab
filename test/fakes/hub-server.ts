/**
 * A fake home hub (Home Assistant) speaking the hub's own protocols, for the hub client's
 * tests and for trying careflow's hub rules without a hub (`npm run fake-hub`, see
 * hub-server-main.ts).
 *
 * WebSocket API at `/api/websocket` (as Home Assistant documents it):
 * - `auth_required` on connect; `{"type":"auth","access_token"}` is answered `auth_ok`, or
 *   `auth_invalid` and the socket is closed (also for a first message that is not an auth
 *   message). Text that is not JSON closes the socket, in either phase.
 * - Commands carry a positive integer `id` that must increase (else `id_reuse`); without one,
 *   `invalid_format`. A client may send a JSON array of commands.
 * - `get_states`, `get_config`, `get_services`, `ping` (→ `pong`), `supported_features`,
 *   `subscribe_events` (optional `event_type`; `state_changed`, `call_service` and the
 *   `*_registry_updated` events are fired), `unsubscribe_events` `{subscription}`,
 *   `call_service` `{domain, service, service_data?, target?, return_response?}` → `{context}`
 *   (and `response`), `config/area_registry/list`, `config/entity_registry/list`,
 *   `config/device_registry/list`, `input_text/create` `{name, min?, max?, mode?, pattern?,
 *   initial?, icon?}` (entity `input_text.<slug of name>`), `input_text/list`,
 *   `input_text/delete` `{input_text_id}`. Anything else is `unknown_command`.
 * - Errors are results `{"success":false,"error":{"code","message"}}` with the hub's codes:
 *   `not_found` (unknown action, unknown subscription), `invalid_format` (a missing field),
 *   `service_validation_error` (return_response refused or required), `unknown_error`.
 *
 * REST API under `/api/` (every route needs `Authorization: Bearer <token>`, else 401
 * `{"message":"401: Unauthorized"}`): `GET /api/`, `/api/config`, `/api/services`,
 * `/api/states`, `/api/states/<entity_id>` (404 `{"message":"Entity not found."}`),
 * `POST /api/states/<entity_id>` `{state, attributes?}` (201 created / 200 updated, with
 * `Location`), `DELETE /api/states/<entity_id>`, `POST /api/services/<domain>/<service>` (body:
 * service data incl. `entity_id`/`area_id`/`device_id`) → the states it changed, or
 * `{changed_states, service_response}` with `?return_response`; an unknown action or bad data
 * is 400 `400: Bad Request` (text, as the hub's web server answers).
 *
 * States follow the hub's rules: `last_changed` moves only when `state` changes,
 * `last_updated` when state or attributes change, `last_reported` on every write; a write that
 * changes nothing fires no `state_changed`. Timestamps are ISO with microseconds and `+00:00`,
 * context ids are ULIDs.
 *
 * Actions with effects: `light.turn_on` (`brightness`, `brightness_pct`, 0 turns off),
 * `light.turn_off`, `light.toggle`; `switch.*` and `input_boolean.*` turn_on/turn_off/toggle;
 * `homeassistant.turn_on/turn_off/toggle` (by the entity's domain); `input_text.set_value`
 * (`value`, within the helper's min/max); `media_player.play_media` (`media_content_id`,
 * `media_content_type`, or `media: {…}`; state `playing`), `media_stop`, `media_pause`,
 * `media_play`, `volume_set`, `volume_mute`, `turn_on`, `turn_off`; `tts.speak` (target: a tts
 * entity; `media_player_entity_id`, `message`: the player plays `media-source://tts/…`) and the
 * legacy `tts.<engine>_say`; `weather.get_forecasts` (responses only). Recorded only: any
 * `notify.*` (needs `message`), `persistent_notification.create/dismiss`. As on the hub, an
 * entity action whose target names an entity that does not exist succeeds and changes nothing
 * (`input_text.set_value` creates no helper). Targets may name entities, areas (through the
 * entity and device registries) or devices. Every call, of either API, is recorded in `calls`.
 *
 * Scripting: `startFakeHub(options)` (no states, areas or registries unless given; `demoHouse()`
 * is the house `npm run fake-hub` serves), then `setState` (fires `state_changed`),
 * `removeState`, `setAreas`/`setEntityRegistry`/`setDeviceRegistry` (fire the registry
 * events), `calls`/`clearCalls`/`waitForCalls`, `connections`, `dropConnections` (terminates
 * every socket, no close frame), `stop` (stops listening, keeps every state; changes made
 * meanwhile are seen by a client that reconnects), `restart` (same port), `failNext` (the next
 * command of a type gets an error result), `close`.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import express from "express";
import { WebSocketServer, type WebSocket } from "ws";

export interface HubContext {
  id: string;
  parent_id: string | null;
  user_id: string | null;
}

export interface HubState {
  entity_id: string;
  state: string;
  attributes: Record<string, any>;
  last_changed: string;
  last_reported: string;
  last_updated: string;
  context: HubContext;
}

export interface HubArea {
  aliases: string[];
  area_id: string;
  floor_id: string | null;
  humidity_entity_id: string | null;
  icon: string | null;
  labels: string[];
  name: string;
  picture: string | null;
  temperature_entity_id: string | null;
  created_at: number;
  modified_at: number;
}

export interface HubEntityEntry {
  area_id: string | null;
  categories: Record<string, string>;
  config_entry_id: string | null;
  config_subentry_id: string | null;
  created_at: number;
  device_id: string | null;
  disabled_by: string | null;
  entity_category: string | null;
  entity_id: string;
  has_entity_name: boolean;
  hidden_by: string | null;
  icon: string | null;
  id: string;
  labels: string[];
  modified_at: number;
  name: string | null;
  options: Record<string, any>;
  original_name: string | null;
  platform: string;
  translation_key: string | null;
  unique_id: string;
}

export interface HubDeviceEntry {
  area_id: string | null;
  configuration_url: string | null;
  config_entries: string[];
  config_entries_subentries: Record<string, Array<string | null>>;
  connections: Array<[string, string]>;
  created_at: number;
  disabled_by: string | null;
  entry_type: string | null;
  hw_version: string | null;
  id: string;
  identifiers: Array<[string, string]>;
  labels: string[];
  manufacturer: string | null;
  model: string | null;
  model_id: string | null;
  modified_at: number;
  name_by_user: string | null;
  name: string | null;
  primary_config_entry: string | null;
  serial_number: string | null;
  sw_version: string | null;
  via_device_id: string | null;
}

/** An area as given: `area_id` defaults to the slug of `name`, the rest to the hub's defaults. */
export type HubAreaInput = Partial<HubArea> & { name: string };
/** An entity registry entry as given: `id`, `unique_id` default to ones derived from `entity_id`, `platform` to its domain. */
export type HubEntityEntryInput = Partial<HubEntityEntry> & { entity_id: string };
/** A device registry entry as given. */
export type HubDeviceEntryInput = Partial<HubDeviceEntry> & { id: string };

export interface HubStateInput {
  entity_id: string;
  state: string;
  attributes?: Record<string, any>;
}

export interface HubConfig {
  latitude: number;
  longitude: number;
  elevation: number;
  unit_system: Record<string, string>;
  location_name: string;
  time_zone: string;
  components: string[];
  config_dir: string;
  allowlist_external_dirs: string[];
  allowlist_external_urls: string[];
  version: string;
  config_source: string;
  recovery_mode: boolean;
  state: string;
  external_url: string | null;
  internal_url: string | null;
  currency: string;
  country: string | null;
  language: string;
  safe_mode: boolean;
  debug: boolean;
  radius: number;
}

/** One action call, as the client sent it (either API). */
export interface HubServiceCall {
  domain: string;
  service: string;
  /** `service_data` of a WebSocket call, the body of a REST call ({} when none). */
  service_data: Record<string, any>;
  /** `target` of a WebSocket call as sent (REST calls have none: the body holds entity_id). */
  target?: Record<string, any>;
  /** The existing entities the call resolved to (target, service_data.entity_id, areas, devices). */
  entity_ids: string[];
  return_response: boolean;
  via: "websocket" | "rest";
  /** ISO time of the call. */
  time: string;
  context: HubContext;
}

export interface HubError {
  code: string;
  message: string;
}

export interface FakeHubOptions {
  /** The access token both APIs accept (default "fake-hub-token"). */
  token?: string;
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  areas?: HubAreaInput[];
  states?: HubStateInput[];
  entityRegistry?: HubEntityEntryInput[];
  deviceRegistry?: HubDeviceEntryInput[];
  /** Overrides of `get_config` / `GET /api/config` (time_zone defaults to UTC). */
  config?: Partial<HubConfig>;
  /** Sent in auth_required / auth_ok (default "2025.1.0"). */
  haVersion?: string;
  /** Told a line for every connection, authentication, action call and state change. */
  log?: (line: string) => void;
  /** The hub's clock for state and event times (epoch ms; default the real time), e.g. a test's ManualClock. */
  now?: () => number;
}

export interface FakeHub {
  /** http://127.0.0.1:<port> */
  url: string;
  /** ws://127.0.0.1:<port>/api/websocket */
  wsUrl: string;
  port: number;
  token: string;
  /** Sets (or creates) a state and fires state_changed if anything changed; attributes omitted keep the old ones. */
  setState(entityId: string, state: string, attributes?: Record<string, any>): HubState;
  /** Removes a state (state_changed with new_state null); false if there was none. */
  removeState(entityId: string): boolean;
  state(entityId: string): HubState | undefined;
  states(): HubState[];
  setAreas(areas: HubAreaInput[]): void;
  setEntityRegistry(entries: HubEntityEntryInput[]): void;
  setDeviceRegistry(devices: HubDeviceEntryInput[]): void;
  /** Recorded action calls, oldest first (a live array). */
  calls: HubServiceCall[];
  clearCalls(): void;
  /** Resolves once `n` calls are recorded. */
  waitForCalls(n: number, timeoutMs?: number): Promise<HubServiceCall[]>;
  /** Open WebSocket connections (authenticated or not; not those closing). */
  connections(): number;
  /** Terminates every WebSocket at once (no close frame), as a hub that dies or a network that drops. */
  dropConnections(): void;
  /** Stops listening and drops every connection; states, registries and calls are kept. */
  stop(): Promise<void>;
  /** Listens again on the same port with the same states. No-op while listening. */
  restart(): Promise<void>;
  readonly listening: boolean;
  /** The next WebSocket command of this type (e.g. "get_states", "call_service") gets this error result (default unknown_error); a call failed so is not recorded. */
  failNext(command: string, error?: HubError): void;
  close(): Promise<void>;
}

const DEFAULT_TOKEN = "fake-hub-token";
const DEFAULT_VERSION = "2025.1.0";
/** The hub user the token belongs to (contexts of calls name it). */
const USER_ID = "6f0c4a2e9b8d4c1fa3e5d7b9c1a2e4f6";
const ENTITY_ID = /^(?!.+__)(?!_)[\da-z_]+(?<!_)\.(?!_)[\da-z_]+(?<!_)$/;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
function ulid(): string {
  let t = Date.now();
  let time = "";
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + Array.from(crypto.randomBytes(16), (b) => CROCKFORD[b % 32]).join("");
}

/** The hub's timestamp form: 2025-01-05T10:00:00.123000+00:00 */
const isoNowReal = () => new Date().toISOString().replace("Z", "000+00:00");
const clone = <T>(v: T): T => structuredClone(v);
/** A stable 32-hex id (registry ids), from a seed. */
export const hubId = (seed: string) => crypto.createHash("md5").update(seed).digest("hex");

/** The hub's slugify: lower case, accents dropped, anything else one `_`. */
export function hubSlug(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return slug || "unknown";
}

const domainOf = (entityId: string) => entityId.split(".")[0];
const asList = (v: unknown): string[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

class CallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const required = (data: Record<string, any>, key: string) => {
  if (data[key] === undefined || data[key] === null) throw new CallError("invalid_format", `required key not provided @ data['${key}']`);
  return data[key];
};

interface Connection {
  ws: WebSocket;
  authed: boolean;
  lastId: number;
  subs: Map<number, string | null>;
}

interface InputTextItem {
  id: string;
  name: string;
  min: number;
  max: number;
  mode: string;
  pattern?: string;
  initial?: string;
  icon?: string;
}

/** What an action does to one entity; returns the new state and attributes, or null for no change. */
type EntityEffect = (s: HubState, data: Record<string, any>) => { state: string; attributes: Record<string, any> } | null;

interface ServiceDef {
  /** Effect per targeted entity of the action's domain (entity actions). */
  entity?: EntityEffect;
  /** Whole-call behaviour (called once, after validation). */
  call?: (data: Record<string, any>, entityIds: string[], ctx: HubContext) => Record<string, any> | void;
  validate?: (data: Record<string, any>) => void;
  response?: "none" | "optional" | "only";
}

export async function startFakeHub(options: FakeHubOptions = {}): Promise<FakeHub> {
  const token = options.token ?? DEFAULT_TOKEN;
  const haVersion = options.haVersion ?? DEFAULT_VERSION;
  const tell = options.log ?? (() => {});
  const hubNow = options.now;
  // State and event times follow the given clock, so a recorded day carries its own times.
  const isoNow = hubNow ? () => new Date(hubNow()).toISOString().replace("Z", "000+00:00") : isoNowReal;
  let seeding = true;
  const log = (line: string) => void (seeding || tell(line));
  const bootTime = Date.now() / 1000;
  const config: HubConfig = {
    latitude: 51.5072,
    longitude: -0.1276,
    elevation: 11,
    unit_system: {
      length: "km",
      accumulated_precipitation: "mm",
      area: "m²",
      mass: "g",
      pressure: "Pa",
      temperature: "°C",
      volume: "L",
      wind_speed: "m/s",
    },
    location_name: "Home",
    time_zone: "UTC",
    components: ["api", "websocket_api", "http", "light", "switch", "input_boolean", "input_text", "media_player", "notify", "tts", "weather", "person"],
    config_dir: "/config",
    allowlist_external_dirs: ["/media", "/config/www"],
    allowlist_external_urls: [],
    version: haVersion,
    config_source: "storage",
    recovery_mode: false,
    state: "RUNNING",
    external_url: null,
    internal_url: null,
    currency: "EUR",
    country: null,
    language: "en",
    safe_mode: false,
    debug: false,
    radius: 100,
    ...options.config,
  };

  const states = new Map<string, HubState>();
  let areas: HubArea[] = [];
  let entityRegistry: HubEntityEntry[] = [];
  let deviceRegistry: HubDeviceEntry[] = [];
  const inputTexts = new Map<string, InputTextItem>();
  const calls: HubServiceCall[] = [];
  const failures = new Map<string, HubError[]>();
  const conns = new Set<Connection>();

  const context = (userId: string | null = null): HubContext => ({ id: ulid(), parent_id: null, user_id: userId });

  // --- events ---------------------------------------------------------------------------
  function fire(eventType: string, data: Record<string, any>, ctx: HubContext = context()): void {
    const event = { event_type: eventType, data, origin: "LOCAL", time_fired: isoNow(), context: ctx };
    for (const c of conns) {
      if (!c.authed) continue;
      for (const [subId, type] of c.subs) if (type === null || type === eventType) send(c, { id: subId, type: "event", event });
    }
  }

  // --- states ---------------------------------------------------------------------------
  const writeListeners = new Set<(s: HubState) => void>();
  /** Writes a state as the hub's state machine does; returns the new state if anything changed. */
  function writeState(entityId: string, state: string, attributes: Record<string, any>, ctx: HubContext): HubState | null {
    if (!ENTITY_ID.test(entityId)) throw new Error(`fake hub: invalid entity id ${entityId}`);
    const old = states.get(entityId);
    const now = isoNow();
    state = String(state);
    if (old && old.state === state && JSON.stringify(old.attributes) === JSON.stringify(attributes)) {
      old.last_reported = now;
      return null;
    }
    const next: HubState = {
      entity_id: entityId,
      state,
      attributes: clone(attributes),
      last_changed: old && old.state === state ? old.last_changed : now,
      last_reported: now,
      last_updated: now,
      context: ctx,
    };
    states.set(entityId, next);
    for (const f of writeListeners) f(next);
    log(`state ${entityId}: ${old ? old.state : "(new)"} → ${state}`);
    fire("state_changed", { entity_id: entityId, old_state: old ? clone(old) : null, new_state: clone(next) }, ctx);
    return next;
  }

  function deleteState(entityId: string): boolean {
    const old = states.get(entityId);
    if (!old) return false;
    states.delete(entityId);
    log(`state ${entityId}: removed`);
    fire("state_changed", { entity_id: entityId, old_state: clone(old), new_state: null });
    return true;
  }

  // --- registries -----------------------------------------------------------------------
  const fullArea = (a: HubAreaInput): HubArea => ({
    aliases: [],
    area_id: hubSlug(a.name),
    floor_id: null,
    humidity_entity_id: null,
    icon: null,
    labels: [],
    picture: null,
    temperature_entity_id: null,
    created_at: bootTime,
    modified_at: bootTime,
    ...a,
  });
  const fullEntity = (e: HubEntityEntryInput): HubEntityEntry => ({
    area_id: null,
    categories: {},
    config_entry_id: null,
    config_subentry_id: null,
    created_at: bootTime,
    device_id: null,
    disabled_by: null,
    entity_category: null,
    has_entity_name: false,
    hidden_by: null,
    icon: null,
    id: hubId(`entity:${e.entity_id}`),
    labels: [],
    modified_at: bootTime,
    name: null,
    options: {},
    original_name: null,
    platform: domainOf(e.entity_id),
    translation_key: null,
    unique_id: e.entity_id,
    ...e,
  });
  const fullDevice = (d: HubDeviceEntryInput): HubDeviceEntry => ({
    area_id: null,
    configuration_url: null,
    config_entries: [],
    config_entries_subentries: {},
    connections: [],
    created_at: bootTime,
    disabled_by: null,
    entry_type: null,
    hw_version: null,
    identifiers: [],
    labels: [],
    manufacturer: null,
    model: null,
    model_id: null,
    modified_at: bootTime,
    name_by_user: null,
    name: null,
    primary_config_entry: null,
    serial_number: null,
    sw_version: null,
    via_device_id: null,
    ...d,
  });

  /** Replaces a registry, firing `<event>` per created, updated and removed entry. */
  function replaceRegistry<T>(old: T[], next: T[], key: (t: T) => string, event: string, field: string): T[] {
    const before = new Map(old.map((t) => [key(t), t]));
    const after = new Map(next.map((t) => [key(t), t]));
    for (const [k, t] of after) {
      const prev = before.get(k);
      if (!prev) fire(event, { action: "create", [field]: k });
      else if (JSON.stringify(prev) !== JSON.stringify(t))
        fire(event, { action: "update", [field]: k, ...(event === "entity_registry_updated" ? { changes: {} } : {}) });
    }
    for (const k of before.keys()) if (!after.has(k)) fire(event, { action: "remove", [field]: k });
    return next;
  }
  const setAreas = (list: HubAreaInput[]) => {
    areas = replaceRegistry(areas, clone(list).map(fullArea), (a) => a.area_id, "area_registry_updated", "area_id");
  };
  const setEntityRegistry = (list: HubEntityEntryInput[]) => {
    entityRegistry = replaceRegistry(entityRegistry, clone(list).map(fullEntity), (e) => e.entity_id, "entity_registry_updated", "entity_id");
  };
  const setDeviceRegistry = (list: HubDeviceEntryInput[]) => {
    deviceRegistry = replaceRegistry(deviceRegistry, clone(list).map(fullDevice), (d) => d.id, "device_registry_updated", "device_id");
  };

  /** The existing entities a call names: entity ids (or "all"), areas (entity area, else its device's), devices. */
  function resolveTargets(domain: string, data: Record<string, any>, target: Record<string, any> | undefined): string[] {
    const t = { ...data, ...target };
    const ids = new Set<string>();
    const named = asList(t.entity_id);
    if (named.includes("all")) for (const id of states.keys()) if (domainOf(id) === domain) ids.add(id);
    for (const id of named) if (states.has(id)) ids.add(id);
    const areaIds = new Set(asList(t.area_id));
    const deviceIds = new Set(asList(t.device_id));
    const devicesInArea = new Set(deviceRegistry.filter((d) => d.area_id !== null && areaIds.has(d.area_id)).map((d) => d.id));
    for (const e of entityRegistry) {
      if (!states.has(e.entity_id) || e.disabled_by) continue;
      // An entity without an area of its own is in its device's area.
      const inArea = e.area_id !== null ? areaIds.has(e.area_id) : e.device_id !== null && devicesInArea.has(e.device_id);
      if (inArea || (e.device_id !== null && deviceIds.has(e.device_id))) ids.add(e.entity_id);
    }
    return [...ids];
  }

  // --- actions --------------------------------------------------------------------------
  const onOff =
    (turnOn: boolean | "toggle"): EntityEffect =>
    (s) => ({ state: turnOn === "toggle" ? (s.state === "on" ? "off" : "on") : turnOn ? "on" : "off", attributes: s.attributes });
  const lastBrightness = new Map<string, number>();
  const lightOn: EntityEffect = (s, data) => {
    let brightness: number = s.attributes.brightness ?? lastBrightness.get(s.entity_id) ?? 255;
    if (data.brightness !== undefined) brightness = Math.round(Number(data.brightness));
    else if (data.brightness_pct !== undefined) brightness = Math.round((Number(data.brightness_pct) * 255) / 100);
    else if (data.brightness_step !== undefined) brightness += Math.round(Number(data.brightness_step));
    else if (data.brightness_step_pct !== undefined) brightness += Math.round((Number(data.brightness_step_pct) * 255) / 100);
    brightness = Math.max(0, Math.min(255, brightness));
    if (brightness === 0) return lightOff(s, data);
    lastBrightness.set(s.entity_id, brightness);
    const extra: Record<string, any> = {};
    for (const k of ["color_temp_kelvin", "rgb_color", "hs_color", "xy_color", "effect"]) if (data[k] !== undefined) extra[k] = data[k];
    return { state: "on", attributes: { ...s.attributes, ...extra, color_mode: s.attributes.color_mode ?? "brightness", brightness } };
  };
  const lightOff: EntityEffect = (s) => {
    if (typeof s.attributes.brightness === "number") lastBrightness.set(s.entity_id, s.attributes.brightness);
    return { state: "off", attributes: { ...s.attributes, color_mode: null, brightness: null } };
  };
  const mediaState =
    (state: string): EntityEffect =>
    (s) => ({ state, attributes: s.attributes });
  const playMedia = (s: HubState, id: string, type: string, extra: Record<string, any> = {}) => ({
    state: "playing",
    attributes: { ...s.attributes, media_content_id: id, media_content_type: type, ...extra },
  });

  const services: Record<string, Record<string, ServiceDef>> = {
    homeassistant: {
      turn_on: { entity: (s, d) => generic(s, d, "turn_on") },
      turn_off: { entity: (s, d) => generic(s, d, "turn_off") },
      toggle: { entity: (s, d) => generic(s, d, "toggle") },
      update_entity: {},
    },
    light: { turn_on: { entity: lightOn }, turn_off: { entity: lightOff }, toggle: { entity: (s, d) => (s.state === "on" ? lightOff(s, d) : lightOn(s, d)) } },
    switch: { turn_on: { entity: onOff(true) }, turn_off: { entity: onOff(false) }, toggle: { entity: onOff("toggle") } },
    input_boolean: { turn_on: { entity: onOff(true) }, turn_off: { entity: onOff(false) }, toggle: { entity: onOff("toggle") }, reload: {} },
    input_text: {
      set_value: {
        validate: (d) => void required(d, "value"),
        entity: (s, d) => {
          const value = String(d.value);
          const min = Number(s.attributes.min ?? 0);
          const max = Number(s.attributes.max ?? 100);
          if (value.length < min || value.length > max) throw new CallError("unknown_error", `Invalid value: ${value} (length range ${min} - ${max})`);
          return { state: value, attributes: s.attributes };
        },
      },
      reload: {},
    },
    media_player: {
      play_media: {
        validate: (d) => {
          if (d.media === undefined) {
            required(d, "media_content_id");
            required(d, "media_content_type");
          }
        },
        entity: (s, d) => {
          const media = d.media ?? d;
          const extra = d.announce !== undefined ? { announce: d.announce } : {};
          return playMedia(s, String(media.media_content_id), String(media.media_content_type), extra);
        },
      },
      media_play: { entity: mediaState("playing") },
      media_pause: { entity: mediaState("paused") },
      media_stop: { entity: mediaState("idle") },
      turn_on: { entity: mediaState("idle") },
      turn_off: { entity: mediaState("off") },
      volume_set: {
        validate: (d) => void required(d, "volume_level"),
        entity: (s, d) => ({ state: s.state, attributes: { ...s.attributes, volume_level: Number(d.volume_level) } }),
      },
      volume_mute: {
        validate: (d) => void required(d, "is_volume_muted"),
        entity: (s, d) => ({ state: s.state, attributes: { ...s.attributes, is_volume_muted: Boolean(d.is_volume_muted) } }),
      },
    },
    tts: {
      speak: {
        validate: (d) => {
          required(d, "media_player_entity_id");
          required(d, "message");
        },
        call: (d, ids, ctx) => {
          const now = isoNow();
          for (const tts of ids.filter((id) => domainOf(id) === "tts")) {
            const s = states.get(tts)!;
            writeState(tts, now, s.attributes, ctx);
            const url = `media-source://tts/${tts}?message=${encodeURIComponent(String(d.message))}${d.language ? `&language=${encodeURIComponent(d.language)}` : ""}`;
            for (const player of asList(d.media_player_entity_id)) {
              const p = states.get(player);
              if (p && domainOf(player) === "media_player") writeState(player, "playing", playMedia(p, url, "music").attributes, ctx);
            }
          }
        },
      },
      clear_cache: {},
    },
    weather: {
      get_forecasts: {
        response: "only",
        validate: (d) => {
          if (!["daily", "hourly", "twice_daily"].includes(required(d, "type")))
            throw new CallError("invalid_format", `value must be one of ['daily', 'hourly', 'twice_daily'] for dictionary value @ data['type']`);
        },
        call: (d, ids) => {
          const step = d.type === "hourly" ? 3600_000 : d.type === "daily" ? 86400_000 : 43200_000;
          const start = Math.ceil(Date.now() / step) * step;
          return Object.fromEntries(
            ids
              .filter((id) => domainOf(id) === "weather")
              .map((id) => {
                const t = Number(states.get(id)!.attributes.temperature ?? 12);
                const forecast = Array.from({ length: 5 }, (_, i) => ({
                  datetime: new Date(start + i * step).toISOString().replace(".000Z", "+00:00"),
                  condition: states.get(id)!.state,
                  temperature: t + (i % 3),
                  templow: t - 4,
                  precipitation: 0,
                }));
                return [id, { forecast }];
              }),
          );
        },
      },
    },
    persistent_notification: { create: { validate: (d) => void required(d, "message") }, dismiss: { validate: (d) => void required(d, "notification_id") } },
  };
  function generic(s: HubState, d: Record<string, any>, service: "turn_on" | "turn_off" | "toggle") {
    const def = services[domainOf(s.entity_id)]?.[service];
    return def?.entity ? def.entity(s, d) : null;
  }
  function serviceDef(domain: string, service: string): ServiceDef | undefined {
    if (domain === "notify") return { validate: (d) => void required(d, "message") };
    if (domain === "tts" && service.endsWith("_say"))
      return {
        validate: (d) => void required(d, "message"),
        call: (d, ids, ctx) => {
          const url = `media-source://tts/${service.slice(0, -4)}?message=${encodeURIComponent(String(d.message))}`;
          for (const id of ids) if (domainOf(id) === "media_player") writeState(id, "playing", playMedia(states.get(id)!, url, "music").attributes, ctx);
        },
      };
    return services[domain]?.[service];
  }
  function serviceList(): Record<string, Record<string, any>> {
    const out: Record<string, Record<string, any>> = {};
    const all: Record<string, string[]> = {
      ...Object.fromEntries(Object.entries(services).map(([d, s]) => [d, Object.keys(s)])),
      notify: ["notify", "send_message", "persistent_notification"],
    };
    for (const [domain, names] of Object.entries(all)) {
      out[domain] = {};
      for (const name of names) {
        const def = serviceDef(domain, name);
        out[domain][name] = {
          name: name.replace(/_/g, " "),
          description: "",
          fields: {},
          ...(def?.entity ? { target: { entity: [{ domain: [domain] }] } } : {}),
          ...(def?.response ? { response: { optional: def.response === "optional" } } : {}),
        };
      }
    }
    return out;
  }

  /** Runs an action call; returns the changed states and the response (if it has one). */
  function callService(
    domain: string,
    service: string,
    data: Record<string, any>,
    target: Record<string, any> | undefined,
    returnResponse: boolean,
    via: HubServiceCall["via"],
  ): { ctx: HubContext; changed: HubState[]; response?: Record<string, any> } {
    const ctx = context(USER_ID);
    const entityIds = resolveTargets(domain, data, target);
    calls.push({
      domain,
      service,
      service_data: clone(data),
      ...(target ? { target: clone(target) } : {}),
      entity_ids: entityIds,
      return_response: returnResponse,
      via,
      time: isoNow(),
      context: ctx,
    });
    log(`call ${domain}.${service}${entityIds.length ? ` → ${entityIds.join(", ")}` : ""} ${JSON.stringify(data)}`);
    const def = serviceDef(domain, service);
    if (!def)
      throw new CallError("not_found", `Action ${domain}.${service} not found.`, {
        translation_key: "service_not_found",
        translation_placeholders: { domain, service },
        translation_domain: "homeassistant",
      });
    def.validate?.(data);
    const response = def.response ?? "none";
    if (returnResponse && response === "none")
      throw new CallError("service_validation_error", "An action which does not return responses can't be called with return_response=True");
    if (!returnResponse && response === "only")
      throw new CallError("service_validation_error", "The action requires responses and must be called with return_response=True");
    fire("call_service", { domain, service, service_data: { ...data, ...target } }, ctx);
    const changed = new Map<string, HubState>();
    const track = (s: HubState) => void changed.set(s.entity_id, s);
    writeListeners.add(track);
    let result: Record<string, any> | undefined;
    try {
      for (const id of def.entity ? entityIds : []) {
        const s = states.get(id);
        if (!s || (domain !== "homeassistant" && domainOf(id) !== domain)) continue;
        const next = def.entity!(s, data);
        if (next) writeState(id, next.state, next.attributes, ctx);
      }
      result = def.call?.(data, entityIds, ctx) ?? undefined;
    } finally {
      writeListeners.delete(track);
    }
    return { ctx, changed: [...changed.values()].map(clone), ...(returnResponse ? { response: result ?? {} } : {}) };
  }

  // --- input_text helpers ---------------------------------------------------------------
  function createInputText(msg: Record<string, any>): InputTextItem {
    const name = msg.name;
    if (typeof name !== "string" || !name.length) throw new CallError("invalid_format", "required key not provided @ data['name']");
    const min = msg.min === undefined ? 0 : Number(msg.min);
    const max = msg.max === undefined ? 100 : Number(msg.max);
    const mode = msg.mode ?? "text";
    if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max > 255 || min > max)
      throw new CallError("invalid_format", "Minimum length must be less than or equal to the maximum length, both within 0 and 255");
    if (!["text", "password"].includes(mode))
      throw new CallError("invalid_format", `value must be one of ['password', 'text'] for dictionary value @ data['mode']`);
    const base = hubSlug(name);
    let id = base;
    for (let n = 2; inputTexts.has(id) || states.has(`input_text.${id}`); n++) id = `${base}_${n}`;
    const item: InputTextItem = { name, min, max, mode, id };
    for (const k of ["pattern", "initial", "icon"] as const) if (typeof msg[k] === "string") item[k] = msg[k];
    inputTexts.set(id, item);
    const entityId = `input_text.${id}`;
    setEntityRegistry([
      ...entityRegistry,
      { entity_id: entityId, platform: "input_text", unique_id: id, original_name: name, id: hubId(`entity:${entityId}`) },
    ]);
    const attributes: Record<string, any> = { editable: true, min, max, pattern: item.pattern ?? null, mode, friendly_name: name };
    if (item.icon) attributes.icon = item.icon;
    writeState(entityId, item.initial ?? "unknown", attributes, context(USER_ID));
    log(`input_text/create ${entityId}`);
    return item;
  }

  // --- WebSocket API --------------------------------------------------------------------
  function send(c: Connection, msg: unknown): void {
    if (c.ws.readyState === c.ws.OPEN) c.ws.send(JSON.stringify(msg));
  }
  const result = (c: Connection, id: number, value: unknown) => send(c, { id, type: "result", success: true, result: value });
  const error = (c: Connection, id: number | null, code: string, message: string, extra: Record<string, unknown> = {}) =>
    send(c, { id, type: "result", success: false, error: { code, message, ...extra } });

  function onAuthMessage(c: Connection, msg: any): void {
    if (!msg || typeof msg !== "object" || msg.type !== "auth" || typeof msg.access_token !== "string") {
      const why =
        !msg || typeof msg !== "object"
          ? "expected a dictionary"
          : msg.type !== "auth"
            ? "value must be one of ['auth'] for dictionary value @ data['type']"
            : "required key not provided @ data['access_token']";
      send(c, { type: "auth_invalid", message: `Auth message incorrectly formatted: ${why}` });
      c.ws.close();
      return;
    }
    if (msg.access_token !== token) {
      log("websocket: auth_invalid");
      send(c, { type: "auth_invalid", message: "Invalid access token or password" });
      c.ws.close();
      return;
    }
    c.authed = true;
    log("websocket: auth_ok");
    send(c, { type: "auth_ok", ha_version: haVersion });
  }

  function onCommand(c: Connection, msg: any): void {
    const id = msg && typeof msg === "object" ? msg.id : undefined;
    if (!Number.isInteger(id) || id <= 0 || typeof msg.type !== "string")
      return error(c, Number.isInteger(id) ? id : null, "invalid_format", "Message incorrectly formatted.");
    if (id <= c.lastId) return error(c, id, "id_reuse", "Identifier values have to increase.");
    c.lastId = id;
    const failure = failures.get(msg.type)?.shift();
    if (failure) return error(c, id, failure.code, failure.message);
    try {
      switch (msg.type) {
        case "ping":
          return send(c, { id, type: "pong" });
        case "supported_features":
          return result(c, id, null);
        case "get_states":
          return result(c, id, [...states.values()].map(clone));
        case "get_config":
          return result(c, id, clone(config));
        case "get_services":
          return result(c, id, serviceList());
        case "subscribe_events":
          c.subs.set(id, typeof msg.event_type === "string" ? msg.event_type : null);
          return result(c, id, null);
        case "unsubscribe_events": {
          if (!c.subs.delete(msg.subscription)) return error(c, id, "not_found", "Subscription not found.");
          return result(c, id, null);
        }
        case "call_service": {
          if (typeof msg.domain !== "string" || typeof msg.service !== "string")
            throw new CallError("invalid_format", "required key not provided @ data['domain']");
          const data = msg.service_data ?? {};
          if (typeof data !== "object" || Array.isArray(data))
            throw new CallError("invalid_format", "expected dict for dictionary value @ data['service_data']");
          if (msg.target !== undefined && (typeof msg.target !== "object" || msg.target === null || Array.isArray(msg.target)))
            throw new CallError("invalid_format", "expected dict for dictionary value @ data['target']");
          const out = callService(msg.domain, msg.service, data, msg.target, msg.return_response === true, "websocket");
          return result(c, id, { context: out.ctx, ...(out.response !== undefined ? { response: out.response } : {}) });
        }
        case "config/area_registry/list":
          return result(c, id, areas.map(clone));
        case "config/entity_registry/list":
          return result(c, id, entityRegistry.map(clone));
        case "config/device_registry/list":
          return result(c, id, deviceRegistry.map(clone));
        case "input_text/create":
          return result(c, id, createInputText(msg));
        case "input_text/list":
          return result(c, id, [...inputTexts.values()].map(clone));
        case "input_text/delete": {
          const itemId = msg.input_text_id;
          if (!inputTexts.delete(itemId)) return error(c, id, "not_found", `Unable to find input_text_id ${itemId}`);
          setEntityRegistry(entityRegistry.filter((e) => e.entity_id !== `input_text.${itemId}`));
          deleteState(`input_text.${itemId}`);
          return result(c, id, null);
        }
        default:
          return error(c, id, "unknown_command", "Unknown command.");
      }
    } catch (err) {
      log(`websocket: ${msg.type} failed: ${err instanceof CallError ? err.code : "unknown_error"}: ${(err as Error).message}`);
      if (err instanceof CallError) return error(c, id, err.code, err.message, err.extra);
      return error(c, id, "unknown_error", String((err as Error).message ?? err));
    }
  }

  const wss = new WebSocketServer({ noServer: true });
  wss.on("connection", (ws) => {
    const c: Connection = { ws, authed: false, lastId: 0, subs: new Map() };
    conns.add(c);
    log(`websocket: connected (${conns.size} open)`);
    ws.on("close", () => {
      conns.delete(c);
      log(`websocket: closed (${conns.size} open)`);
    });
    ws.on("error", () => ws.terminate());
    ws.on("message", (raw, isBinary) => {
      let msg: any;
      try {
        if (isBinary) throw new Error("binary");
        msg = JSON.parse(String(raw));
      } catch {
        ws.close();
        return;
      }
      if (!c.authed) return onAuthMessage(c, msg);
      for (const m of Array.isArray(msg) ? msg : [msg]) onCommand(c, m);
    });
    send(c, { type: "auth_required", ha_version: haVersion });
  });

  // --- REST API -------------------------------------------------------------------------
  const app = express();
  app.disable("x-powered-by");
  app.use("/api", (req, res, next) => {
    if (req.get("authorization") !== `Bearer ${token}`) return void res.status(401).json({ message: "401: Unauthorized" });
    next();
  });
  app.use(express.text({ type: () => true, limit: "1mb" }));
  const jsonBody = (req: express.Request): { ok: true; data: Record<string, any> } | { ok: false } => {
    const raw = typeof req.body === "string" ? req.body : "";
    if (!raw.trim()) return { ok: true, data: {} };
    try {
      const data = JSON.parse(raw);
      return data && typeof data === "object" && !Array.isArray(data) ? { ok: true, data } : { ok: false };
    } catch {
      return { ok: false };
    }
  };
  const badRequest = (res: express.Response) => void res.status(400).type("text/plain").send("400: Bad Request");
  app.get("/api/", (_req, res) => res.json({ message: "API running." }));
  app.get("/api/config", (_req, res) => res.json(config));
  app.get("/api/services", (_req, res) => res.json(Object.entries(serviceList()).map(([domain, s]) => ({ domain, services: s }))));
  app.get("/api/states", (_req, res) => res.json([...states.values()]));
  app.get("/api/states/:entityId", (req, res) => {
    const s = states.get(req.params.entityId);
    if (!s) return void res.status(404).json({ message: "Entity not found." });
    res.json(s);
  });
  app.post("/api/states/:entityId", (req, res) => {
    const entityId = req.params.entityId;
    if (!ENTITY_ID.test(entityId)) return void res.status(400).json({ message: "Invalid entity ID specified." });
    const body = jsonBody(req);
    if (!body.ok) return void res.status(400).json({ message: "Invalid JSON specified." });
    if (body.data.state === undefined || body.data.state === null) return void res.status(400).json({ message: "No state specified." });
    const existed = states.has(entityId);
    const attributes = body.data.attributes && typeof body.data.attributes === "object" ? body.data.attributes : {};
    writeState(entityId, String(body.data.state), attributes, context(USER_ID));
    res
      .status(existed ? 200 : 201)
      .location(`/api/states/${entityId}`)
      .json(states.get(entityId));
  });
  app.delete("/api/states/:entityId", (req, res) => {
    if (!deleteState(req.params.entityId)) return void res.status(404).json({ message: "Entity not found." });
    res.json({ message: "Entity removed." });
  });
  app.post("/api/services/:domain/:service", (req, res) => {
    const body = jsonBody(req);
    if (!body.ok) return void res.status(400).json({ message: "Data should be valid JSON." });
    const returnResponse = req.query.return_response !== undefined;
    try {
      const out = callService(req.params.domain, req.params.service, body.data, undefined, returnResponse, "rest");
      res.json(returnResponse ? { changed_states: out.changed, service_response: out.response } : out.changed);
    } catch (err) {
      log(`rest: ${req.params.domain}.${req.params.service} failed: ${(err as Error).message}`);
      if (err instanceof CallError) return badRequest(res);
      res.status(500).type("text/plain").send("500 Internal Server Error");
    }
  });
  app.use((_req, res) => void res.status(404).type("text/plain").send("404: Not Found"));

  // --- listening ------------------------------------------------------------------------
  let server: http.Server | null = null;
  let port = options.port ?? 0;
  const sockets = new Set<Socket>();
  async function listen(): Promise<void> {
    const s = http.createServer(app);
    s.on("connection", (sock) => {
      sockets.add(sock);
      sock.on("close", () => sockets.delete(sock));
    });
    s.on("upgrade", (req, socket, head) => {
      if (new URL(req.url ?? "/", "http://x").pathname !== "/api/websocket") return void socket.destroy();
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        s.off("error", reject);
        resolve();
      });
    });
    port = (s.address() as AddressInfo).port;
    server = s;
    log(`listening on http://127.0.0.1:${port}`);
  }
  function dropConnections(): void {
    for (const c of conns) c.ws.terminate();
  }
  async function stop(): Promise<void> {
    const s = server;
    if (!s) return;
    server = null;
    dropConnections();
    for (const sock of sockets) sock.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
    log("stopped listening");
  }

  // Seed (no events: nobody is connected yet).
  const seedCtx = context();
  for (const s of options.states ?? []) writeState(s.entity_id, s.state, s.attributes ?? {}, seedCtx);
  areas = clone(options.areas ?? []).map(fullArea);
  entityRegistry = clone(options.entityRegistry ?? []).map(fullEntity);
  deviceRegistry = clone(options.deviceRegistry ?? []).map(fullDevice);
  seeding = false;
  await listen();

  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get wsUrl() {
      return `ws://127.0.0.1:${port}/api/websocket`;
    },
    get port() {
      return port;
    },
    token,
    setState(entityId, state, attributes) {
      const old = states.get(entityId);
      writeState(entityId, state, attributes ?? old?.attributes ?? {}, context());
      return clone(states.get(entityId)!);
    },
    removeState: deleteState,
    state: (id) => {
      const s = states.get(id);
      return s ? clone(s) : undefined;
    },
    states: () => [...states.values()].map(clone),
    setAreas,
    setEntityRegistry,
    setDeviceRegistry,
    calls,
    clearCalls: () => void (calls.length = 0),
    async waitForCalls(n, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (calls.length < n) {
        if (Date.now() > until) throw new Error(`fake hub: ${calls.length} of ${n} calls arrived`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return calls;
    },
    connections: () => [...conns].filter((c) => c.ws.readyState === c.ws.OPEN).length,
    dropConnections,
    stop,
    restart: async () => {
      if (!server) await listen();
    },
    get listening() {
      return server !== null;
    },
    failNext(command, err = { code: "unknown_error", message: "Unknown error" }) {
      failures.set(command, [...(failures.get(command) ?? []), err]);
    },
    async close() {
      await stop();
      wss.close();
    },
  };
}

/**
 * The house `npm run fake-hub` serves, matching careflow's demo household
 * (runtime/app/demo/demo-household.ts): its five rooms as areas, its hub sensors (a hub
 * sensor's careflow sensor_id is its entity_id) and a few more entities careflow's hub rules
 * use. Entities on a device have no area of their own (they are in their device's area, as on
 * a real hub), except the kitchen speaker, which names its area.
 */
export function demoHouse(): Required<Pick<FakeHubOptions, "areas" | "states" | "entityRegistry" | "deviceRegistry">> {
  const areas: HubAreaInput[] = ["Kitchen", "Bathroom", "Bedroom", "Living room", "Hallway"].map((name) => ({ name }));
  const devices: HubDeviceEntryInput[] = [];
  const entities: HubEntityEntryInput[] = [];
  const states: HubStateInput[] = [];
  const device = (name: string, area: string | null, more: Partial<HubDeviceEntry> = {}) => {
    const id = hubId(`device:${name}`);
    devices.push({ id, name, area_id: area, config_entries: [hubId(`entry:${more.manufacturer ?? name}`)], ...more });
    return id;
  };
  const entity = (
    entity_id: string,
    state: string,
    attributes: Record<string, any>,
    platform: string,
    device_id: string | null,
    more: Partial<HubEntityEntry> = {},
  ) => {
    states.push({ entity_id, state, attributes });
    entities.push({ entity_id, platform, device_id, original_name: attributes.friendly_name ?? null, unique_id: hubId(`unique:${entity_id}`), ...more });
  };
  for (const [room, area] of [
    ["Kitchen", "kitchen"],
    ["Bedroom", "bedroom"],
    ["Bathroom", "bathroom"],
    ["Hallway", "hallway"],
    ["Living room", "living_room"],
  ]) {
    const dev = device(`${room} presence sensor`, area, { manufacturer: "Aqara", model: "Presence Sensor FP2", model_id: "PS-S02D" });
    entity(`binary_sensor.${area}_presence`, "off", { device_class: "occupancy", friendly_name: `${room} presence` }, "homekit_controller", dev);
    if (area === "living_room")
      entity(
        "sensor.living_room_illuminance",
        "142",
        { state_class: "measurement", unit_of_measurement: "lx", device_class: "illuminance", friendly_name: "Living room illuminance" },
        "homekit_controller",
        dev,
      );
  }
  const motion = device("Kitchen motion sensor", "kitchen", { manufacturer: "Philips", model: "Hue motion sensor", model_id: "SML001" });
  entity("binary_sensor.kitchen_motion", "off", { device_class: "motion", friendly_name: "Kitchen motion" }, "hue", motion);
  const bed = device("Bed sensor", "bedroom", { manufacturer: "Withings", model: "Sleep Analyzer" });
  entity("binary_sensor.bed_occupancy", "on", { device_class: "occupancy", friendly_name: "Bed occupancy" }, "withings", bed);
  const lamp = device("Bedroom lamp", "bedroom", { manufacturer: "Philips", model: "Hue white lamp", model_id: "LWA001" });
  entity(
    "light.bedroom",
    "off",
    { supported_color_modes: ["brightness"], color_mode: null, brightness: null, friendly_name: "Bedroom lamp", supported_features: 40 },
    "hue",
    lamp,
  );
  const plug = device("Kettle plug", "kitchen", { manufacturer: "TP-Link", model: "Tapo P110" });
  entity("switch.kettle", "off", { friendly_name: "Kettle plug" }, "tplink", plug);
  const speaker = device("Kitchen speaker", "kitchen", { manufacturer: "Google Inc.", model: "Google Nest Mini" });
  entity(
    "media_player.kitchen_speaker",
    "idle",
    { volume_level: 0.4, is_volume_muted: false, device_class: "speaker", friendly_name: "Kitchen speaker", supported_features: 152461 },
    "cast",
    speaker,
    { area_id: "kitchen" },
  );
  const forecast = device("Forecast", null, { manufacturer: "Met.no", model: "Forecast", entry_type: "service" });
  entity(
    "weather.home",
    "cloudy",
    {
      temperature: 12.4,
      dew_point: 8.1,
      temperature_unit: "°C",
      humidity: 81,
      cloud_coverage: 90,
      pressure: 1012.3,
      pressure_unit: "hPa",
      wind_bearing: 230,
      wind_speed: 14.4,
      wind_speed_unit: "km/h",
      visibility_unit: "km",
      precipitation_unit: "mm",
      attribution: "Weather forecast from met.no, delivered by the Norwegian Meteorological Institute.",
      friendly_name: "Forecast Home",
      supported_features: 3,
    },
    "met",
    forecast,
  );
  const phone = device("Rose's phone", null, { manufacturer: "Google", model: "Pixel 7a" });
  entity(
    "device_tracker.rose_phone",
    "home",
    { source_type: "gps", battery_level: 78, latitude: 51.5072, longitude: -0.1276, gps_accuracy: 12, altitude: 11, friendly_name: "Rose's phone" },
    "mobile_app",
    phone,
  );
  entity(
    "person.rose",
    "home",
    {
      editable: true,
      id: "rose",
      device_trackers: ["device_tracker.rose_phone"],
      latitude: 51.5072,
      longitude: -0.1276,
      gps_accuracy: 12,
      source: "device_tracker.rose_phone",
      user_id: null,
      friendly_name: "Grandma Rose",
    },
    "person",
    null,
    { unique_id: "rose" },
  );
  entity(
    "tts.piper",
    "unknown",
    { friendly_name: "Piper" },
    "wyoming",
    device("Piper", null, { manufacturer: "rhasspy", model: "piper", entry_type: "service" }),
  );
  states.push({
    entity_id: "zone.home",
    state: "1",
    attributes: {
      latitude: 51.5072,
      longitude: -0.1276,
      radius: 100,
      passive: false,
      persons: ["person.rose"],
      editable: true,
      icon: "mdi:home",
      friendly_name: "Home",
    },
  });
  return { areas, states, entityRegistry: entities, deviceRegistry: devices };
}
