import assert from "node:assert/strict";
import net from "node:net";
import WebSocket from "ws";
import { demoHouse, startFakeHub, type FakeHub } from "./hub-server";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;

/** A bare WebSocket client of the hub's protocol: every frame kept, commands numbered. */
class Client {
  readonly frames: any[] = [];
  private nextId = 1;
  closed: Promise<number>;
  constructor(readonly ws: WebSocket) {
    ws.on("message", (d) => this.frames.push(JSON.parse(String(d))));
    this.closed = new Promise((resolve) => ws.once("close", (code) => resolve(code)));
  }
  static async open(hub: FakeHub, token: string | null = hub.token): Promise<Client> {
    const c = new Client(new WebSocket(hub.wsUrl));
    await c.next((f) => f.type === "auth_required");
    if (token !== null) {
      c.send({ type: "auth", access_token: token });
      await c.next((f) => f.type === "auth_ok" || f.type === "auth_invalid");
    }
    return c;
  }
  send(msg: unknown): void {
    this.ws.send(typeof msg === "string" ? msg : JSON.stringify(msg));
  }
  /** The first frame (not yet taken) matching, waiting for it. */
  async next(match: (f: any) => boolean, timeoutMs = 2000): Promise<any> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex(match);
      if (i >= 0) return this.frames.splice(i, 1)[0];
      if (Date.now() > until) throw new Error(`no such frame; got ${JSON.stringify(this.frames)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  /** Sends a command with the next id and returns its result frame. */
  async command(msg: Record<string, unknown>): Promise<any> {
    const id = this.nextId++;
    this.send({ id, ...msg });
    return this.next((f) => f.id === id && (f.type === "result" || f.type === "pong"));
  }
  /** Subscribes (to one event type, or all) and returns the subscription id. */
  async subscribe(eventType?: string): Promise<number> {
    const r = await this.command({ type: "subscribe_events", ...(eventType ? { event_type: eventType } : {}) });
    assert.equal(r.success, true);
    return r.id;
  }
  event(subId: number, match: (e: any) => boolean = () => true): Promise<any> {
    return this.next((f) => f.type === "event" && f.id === subId && match(f.event)).then((f) => f.event);
  }
  close(): void {
    this.ws.close();
  }
}

/** A REST request (JSON body → POST); the answer's json() is untyped. */
const api = (
  hub: FakeHub,
  path: string,
  init: { method?: string; body?: unknown; token?: string | null } = {},
): Promise<{ status: number; headers: Headers; json(): Promise<any> }> =>
  fetch(`${hub.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? hub.token}` }),
      "content-type": "application/json",
    },
    body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
  });

describe("fake home hub", () => {
  let hub: FakeHub;
  const clients: Client[] = [];
  const open = async (token?: string | null) => {
    const c = await Client.open(hub, token);
    clients.push(c);
    return c;
  };
  beforeEach(async () => {
    hub = await startFakeHub({ ...demoHouse(), token: "secret" });
  });
  afterEach(async () => {
    clients.splice(0).forEach((c) => c.ws.terminate());
    await hub.close();
  });

  describe("WebSocket authentication and commands", () => {
    it("asks for auth, accepts the token and answers auth_ok with its version", async () => {
      const c = new Client(new WebSocket(hub.wsUrl));
      clients.push(c);
      assert.deepEqual(await c.next((f) => f.type === "auth_required"), { type: "auth_required", ha_version: "2025.1.0" });
      c.send({ type: "auth", access_token: "secret" });
      assert.deepEqual(await c.next(() => true), { type: "auth_ok", ha_version: "2025.1.0" });
      assert.equal(hub.connections(), 1);
    });

    it("answers a wrong token auth_invalid and closes; a first message that is not auth too", async () => {
      const c = await open("wrong");
      assert.deepEqual(c.frames.length, 0);
      await c.closed;
      const bad = await open(null);
      bad.send({ type: "get_states", id: 1 });
      const f = await bad.next(() => true);
      assert.equal(f.type, "auth_invalid");
      assert.match(f.message, /^Auth message incorrectly formatted/);
      await bad.closed;
    });

    it("says auth_invalid with the hub's message", async () => {
      const c = await open(null);
      c.send({ type: "auth", access_token: "nope" });
      assert.deepEqual(await c.next(() => true), { type: "auth_invalid", message: "Invalid access token or password" });
      await c.closed;
    });

    it("answers get_states with the hub's state objects", async () => {
      const c = await open();
      const r = await c.command({ type: "get_states" });
      assert.equal(r.type, "result");
      assert.equal(r.success, true);
      const bath = r.result.find((s: any) => s.entity_id === "binary_sensor.bathroom_presence");
      assert.equal(bath.state, "off");
      assert.equal(bath.attributes.device_class, "occupancy");
      assert.match(bath.last_changed, ISO);
      assert.match(bath.last_updated, ISO);
      assert.match(bath.last_reported, ISO);
      assert.deepEqual(Object.keys(bath.context).sort(), ["id", "parent_id", "user_id"]);
      assert.match(bath.context.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
      for (const id of [
        "binary_sensor.kitchen_motion",
        "binary_sensor.bed_occupancy",
        "sensor.living_room_illuminance",
        "light.bedroom",
        "media_player.kitchen_speaker",
        "weather.home",
        "device_tracker.rose_phone",
      ])
        assert.ok(
          r.result.some((s: any) => s.entity_id === id),
          id,
        );
    });

    it("refuses ids that do not increase, unknown commands and malformed messages; answers ping; closes on text that is not JSON", async () => {
      const c = await open();
      c.send({ id: 5, type: "ping" });
      assert.deepEqual(await c.next((f) => f.id === 5), { id: 5, type: "pong" });
      c.send({ id: 5, type: "get_states" });
      assert.deepEqual(await c.next((f) => f.id === 5), {
        id: 5,
        type: "result",
        success: false,
        error: { code: "id_reuse", message: "Identifier values have to increase." },
      });
      c.send({ id: 4, type: "ping" });
      assert.equal((await c.next((f) => f.id === 4)).error.code, "id_reuse");
      c.send({ id: 6, type: "no_such_thing" });
      assert.deepEqual((await c.next((f) => f.id === 6)).error, { code: "unknown_command", message: "Unknown command." });
      c.send({ type: "get_states" });
      assert.equal((await c.next((f) => f.type === "result")).error.code, "invalid_format");
      c.send([
        { id: 7, type: "ping" },
        { id: 8, type: "ping" },
      ]);
      await c.next((f) => f.id === 8 && f.type === "pong");
      c.send("{not json");
      await c.closed;
      assert.equal(hub.connections(), 0);
    });

    it("answers get_config and the three registries", async () => {
      const c = await open();
      const config = (await c.command({ type: "get_config" })).result;
      assert.equal(config.version, "2025.1.0");
      assert.equal(config.unit_system.temperature, "°C");
      assert.equal(typeof config.time_zone, "string");
      assert.equal(typeof config.location_name, "string");

      const areas = (await c.command({ type: "config/area_registry/list" })).result;
      assert.deepEqual(areas.map((a: any) => a.area_id).sort(), ["bathroom", "bedroom", "hallway", "kitchen", "living_room"]);
      const living = areas.find((a: any) => a.area_id === "living_room");
      assert.equal(living.name, "Living room");
      assert.equal(living.floor_id, null);
      assert.deepEqual(living.aliases, []);

      const entities = (await c.command({ type: "config/entity_registry/list" })).result;
      const devices = (await c.command({ type: "config/device_registry/list" })).result;
      const bath = entities.find((e: any) => e.entity_id === "binary_sensor.bathroom_presence");
      assert.equal(bath.area_id, null, "in its device's area, as on a real hub");
      const dev = devices.find((d: any) => d.id === bath.device_id);
      assert.equal(dev.area_id, "bathroom");
      assert.equal(typeof dev.name, "string");
      assert.equal(typeof bath.platform, "string");
      assert.match(bath.id, /^[0-9a-f]{32}$/);
      assert.equal(entities.find((e: any) => e.entity_id === "media_player.kitchen_speaker").area_id, "kitchen");
    });

    it("gives the next command of a type the error failNext names", async () => {
      const c = await open();
      hub.failNext("get_states", { code: "home_assistant_error", message: "boom" });
      assert.deepEqual((await c.command({ type: "get_states" })).error, { code: "home_assistant_error", message: "boom" });
      assert.equal((await c.command({ type: "get_states" })).success, true);
    });
  });

  describe("events", () => {
    it("sends state_changed to a subscription, moving last_changed only with the state, and stops after unsubscribe_events", async () => {
      const c = await open();
      const sub = await c.subscribe("state_changed");
      const before = hub.state("binary_sensor.bathroom_presence")!;
      await new Promise((r) => setTimeout(r, 5));
      hub.setState("binary_sensor.bathroom_presence", "on");
      const e = await c.event(sub);
      assert.equal(e.event_type, "state_changed");
      assert.equal(e.origin, "LOCAL");
      assert.match(e.time_fired, ISO);
      assert.equal(e.data.entity_id, "binary_sensor.bathroom_presence");
      assert.equal(e.data.old_state.state, "off");
      assert.equal(e.data.new_state.state, "on");
      assert.deepEqual(e.data.new_state.attributes, before.attributes, "attributes kept when not given");
      assert.notEqual(e.data.new_state.last_changed, before.last_changed);

      hub.setState("binary_sensor.bathroom_presence", "on", { ...before.attributes, note: "x" });
      const attrOnly = await c.event(sub);
      assert.equal(attrOnly.data.new_state.last_changed, e.data.new_state.last_changed);
      assert.notEqual(attrOnly.data.new_state.last_updated, e.data.new_state.last_updated);

      hub.setState("binary_sensor.bathroom_presence", "on", { ...before.attributes, note: "x" });
      hub.setState("binary_sensor.kitchen_motion", "on");
      assert.equal((await c.event(sub)).data.entity_id, "binary_sensor.kitchen_motion", "a write that changes nothing fires nothing");

      hub.setState("sensor.new_thing", "1");
      assert.equal((await c.event(sub)).data.old_state, null);
      hub.removeState("sensor.new_thing");
      assert.equal((await c.event(sub)).data.new_state, null);

      assert.equal((await c.command({ type: "unsubscribe_events", subscription: sub })).success, true);
      assert.equal((await c.command({ type: "unsubscribe_events", subscription: sub })).error.code, "not_found");
      hub.setState("binary_sensor.kitchen_motion", "off");
      await c.command({ type: "ping" });
      assert.deepEqual(
        c.frames.filter((f) => f.type === "event"),
        [],
      );
    });

    it("sends every event type to a subscription without event_type (call_service, registry updates)", async () => {
      const c = await open();
      const sub = await c.subscribe();
      await c.command({ type: "call_service", domain: "switch", service: "turn_on", target: { entity_id: "switch.kettle" } });
      const call = await c.event(sub, (e) => e.event_type === "call_service");
      assert.deepEqual(call.data, { domain: "switch", service: "turn_on", service_data: { entity_id: "switch.kettle" } });
      await c.event(sub, (e) => e.event_type === "state_changed" && e.data.entity_id === "switch.kettle");
      hub.setAreas([{ name: "Kitchen" }, { name: "Garden", floor_id: "ground" }]);
      const created = await c.event(sub, (e) => e.event_type === "area_registry_updated" && e.data.action === "create");
      assert.equal(created.data.area_id, "garden");
      await c.event(sub, (e) => e.event_type === "area_registry_updated" && e.data.action === "remove" && e.data.area_id === "bathroom");
      const areas = (await c.command({ type: "config/area_registry/list" })).result;
      assert.deepEqual(
        areas.map((a: any) => [a.area_id, a.floor_id]),
        [
          ["kitchen", null],
          ["garden", "ground"],
        ],
      );
      hub.setEntityRegistry([{ entity_id: "light.bedroom", area_id: "bedroom" }]);
      await c.event(sub, (e) => e.event_type === "entity_registry_updated" && e.data.entity_id === "light.bedroom");
      const entities = (await c.command({ type: "config/entity_registry/list" })).result;
      assert.equal(entities.length, 1);
      assert.equal(entities[0].platform, "light");
    });
  });

  describe("call_service", () => {
    it("turns the light on and off with brightness, records each call and answers the context", async () => {
      const c = await open();
      const sub = await c.subscribe("state_changed");
      const r = await c.command({
        type: "call_service",
        domain: "light",
        service: "turn_on",
        service_data: { brightness_pct: 50 },
        target: { entity_id: "light.bedroom" },
      });
      assert.equal(r.success, true);
      assert.deepEqual(Object.keys(r.result), ["context"]);
      assert.notEqual(r.result.context.user_id, null);
      const e = await c.event(sub);
      assert.equal(e.data.new_state.state, "on");
      assert.equal(e.data.new_state.attributes.brightness, 128);
      assert.equal(e.context.id, r.result.context.id, "the change carries the call's context");
      assert.equal(hub.state("light.bedroom")!.attributes.color_mode, "brightness");

      await c.command({ type: "call_service", domain: "light", service: "turn_off", target: { entity_id: ["light.bedroom"] } });
      assert.equal(hub.state("light.bedroom")!.state, "off");
      assert.equal(hub.state("light.bedroom")!.attributes.brightness, null);
      await c.command({ type: "call_service", domain: "light", service: "toggle", service_data: { entity_id: "light.bedroom" } });
      assert.equal(hub.state("light.bedroom")!.attributes.brightness, 128, "back to its last brightness");

      assert.deepEqual(
        hub.calls.map((x) => [x.domain, x.service, x.entity_ids, x.via]),
        [
          ["light", "turn_on", ["light.bedroom"], "websocket"],
          ["light", "turn_off", ["light.bedroom"], "websocket"],
          ["light", "toggle", ["light.bedroom"], "websocket"],
        ],
      );
      assert.deepEqual(hub.calls[0].service_data, { brightness_pct: 50 });
      assert.deepEqual(hub.calls[0].target, { entity_id: "light.bedroom" });
      assert.match(hub.calls[0].time, ISO);
      hub.clearCalls();
      assert.equal(hub.calls.length, 0);
    });

    it("switches switches and input_booleans, plays media, records notify and speaks through tts", async () => {
      const c = await open();
      hub.setState("input_boolean.away", "off", { friendly_name: "Away" });
      await c.command({ type: "call_service", domain: "switch", service: "toggle", target: { entity_id: "switch.kettle" } });
      await c.command({ type: "call_service", domain: "input_boolean", service: "turn_on", target: { entity_id: "input_boolean.away" } });
      assert.equal(hub.state("switch.kettle")!.state, "on");
      assert.equal(hub.state("input_boolean.away")!.state, "on");

      await c.command({
        type: "call_service",
        domain: "media_player",
        service: "play_media",
        service_data: { media_content_id: "http://careflow/a.mp3", media_content_type: "music" },
        target: { entity_id: "media_player.kitchen_speaker" },
      });
      const speaker = hub.state("media_player.kitchen_speaker")!;
      assert.equal(speaker.state, "playing");
      assert.equal(speaker.attributes.media_content_id, "http://careflow/a.mp3");
      assert.equal(speaker.attributes.media_content_type, "music");
      const missing = await c.command({
        type: "call_service",
        domain: "media_player",
        service: "play_media",
        target: { entity_id: "media_player.kitchen_speaker" },
      });
      assert.equal(missing.error.code, "invalid_format");

      const n = await c.command({
        type: "call_service",
        domain: "notify",
        service: "mobile_app_rose_phone",
        service_data: { message: "Time for tea", title: "careflow" },
      });
      assert.equal(n.success, true);
      await c.command({
        type: "call_service",
        domain: "tts",
        service: "speak",
        service_data: { media_player_entity_id: "media_player.kitchen_speaker", message: "Hello Rose", language: "en" },
        target: { entity_id: "tts.piper" },
      });
      assert.match(hub.state("media_player.kitchen_speaker")!.attributes.media_content_id, /^media-source:\/\/tts\/tts\.piper\?message=Hello%20Rose/);
      const recorded = hub.calls.find((x) => x.domain === "notify")!;
      assert.deepEqual(recorded.service_data, { message: "Time for tea", title: "careflow" });
      assert.deepEqual(hub.calls.find((x) => x.domain === "tts")!.service_data, {
        media_player_entity_id: "media_player.kitchen_speaker",
        message: "Hello Rose",
        language: "en",
      });
    });

    it("answers an unknown action not_found, and missing data invalid_format (both recorded)", async () => {
      const c = await open();
      const r = await c.command({ type: "call_service", domain: "light", service: "explode", target: { entity_id: "light.bedroom" } });
      assert.equal(r.success, false);
      assert.equal(r.error.code, "not_found");
      assert.equal(r.error.message, "Action light.explode not found.");
      assert.equal((await c.command({ type: "call_service", domain: "nope", service: "x" })).error.code, "not_found");
      assert.equal((await c.command({ type: "call_service", domain: "notify", service: "notify", service_data: {} })).error.code, "invalid_format");
      assert.equal(hub.calls.length, 3);
    });

    it("sets input_text only on an existing helper; input_text/create makes one", async () => {
      const c = await open();
      const none = await c.command({
        type: "call_service",
        domain: "input_text",
        service: "set_value",
        service_data: { value: "hi" },
        target: { entity_id: "input_text.careflow_status" },
      });
      assert.equal(none.success, true, "the hub accepts a target that does not exist…");
      assert.equal(hub.state("input_text.careflow_status"), undefined, "…and creates nothing");

      const created = await c.command({ type: "input_text/create", name: "Careflow status", max: 20 });
      assert.deepEqual(created.result, { name: "Careflow status", min: 0, max: 20, mode: "text", id: "careflow_status" });
      const helper = hub.state("input_text.careflow_status")!;
      assert.equal(helper.state, "unknown");
      assert.equal(helper.attributes.max, 20);
      assert.equal(helper.attributes.friendly_name, "Careflow status");
      await c.command({
        type: "call_service",
        domain: "input_text",
        service: "set_value",
        service_data: { value: "all well" },
        target: { entity_id: "input_text.careflow_status" },
      });
      assert.equal(hub.state("input_text.careflow_status")!.state, "all well");
      const tooLong = await c.command({
        type: "call_service",
        domain: "input_text",
        service: "set_value",
        service_data: { value: "x".repeat(21) },
        target: { entity_id: "input_text.careflow_status" },
      });
      assert.equal(tooLong.success, false);
      const again = await c.command({ type: "input_text/create", name: "Careflow status" });
      assert.equal(again.result.id, "careflow_status_2");
      const entities = (await c.command({ type: "config/entity_registry/list" })).result;
      assert.ok(entities.some((e: any) => e.entity_id === "input_text.careflow_status" && e.platform === "input_text"));
      assert.equal((await c.command({ type: "input_text/create" })).error.code, "invalid_format");
    });

    it("targets an area through the registries, and answers responses only when asked", async () => {
      const c = await open();
      await c.command({ type: "call_service", domain: "homeassistant", service: "turn_on", target: { area_id: "kitchen" } });
      assert.equal(hub.state("switch.kettle")!.state, "on");
      assert.equal(hub.state("binary_sensor.kitchen_motion")!.state, "off", "sensors have no turn_on");
      assert.ok(hub.calls[0].entity_ids.includes("media_player.kitchen_speaker"));
      assert.ok(!hub.calls[0].entity_ids.includes("light.bedroom"));

      const f = await c.command({
        type: "call_service",
        domain: "weather",
        service: "get_forecasts",
        service_data: { type: "daily" },
        target: { entity_id: "weather.home" },
        return_response: true,
      });
      assert.equal(f.result.response["weather.home"].forecast.length, 5);
      const noResp = await c.command({
        type: "call_service",
        domain: "weather",
        service: "get_forecasts",
        service_data: { type: "daily" },
        target: { entity_id: "weather.home" },
      });
      assert.equal(noResp.error.code, "service_validation_error");
      const refused = await c.command({
        type: "call_service",
        domain: "switch",
        service: "turn_off",
        target: { entity_id: "switch.kettle" },
        return_response: true,
      });
      assert.equal(refused.error.code, "service_validation_error");
    });
  });

  describe("REST", () => {
    it("refuses a request without the token", async () => {
      for (const token of [null, "wrong"]) {
        const res = await api(hub, "/api/states", { token });
        assert.equal(res.status, 401);
        assert.deepEqual(await res.json(), { message: "401: Unauthorized" });
      }
    });

    it("serves status, config and states; 404 for an unknown entity", async () => {
      assert.deepEqual(await (await api(hub, "/api/")).json(), { message: "API running." });
      assert.equal((await (await api(hub, "/api/config")).json()).version, "2025.1.0");
      const all = await (await api(hub, "/api/states")).json();
      assert.equal(all.length, hub.states().length);
      const one = await (await api(hub, "/api/states/weather.home")).json();
      assert.equal(one.state, "cloudy");
      const missing = await api(hub, "/api/states/sensor.nope");
      assert.equal(missing.status, 404);
      assert.deepEqual(await missing.json(), { message: "Entity not found." });
    });

    it("creates (201) and sets (200) a state with POST /api/states, firing state_changed", async () => {
      const c = await open();
      const sub = await c.subscribe("state_changed");
      const created = await api(hub, "/api/states/input_text.careflow_note", { body: { state: "hello", attributes: { friendly_name: "Note" } } });
      assert.equal(created.status, 201);
      assert.equal(created.headers.get("location"), "/api/states/input_text.careflow_note");
      assert.equal((await created.json()).state, "hello");
      assert.equal((await c.event(sub)).data.new_state.state, "hello");
      const updated = await api(hub, "/api/states/input_text.careflow_note", { body: { state: "bye" } });
      assert.equal(updated.status, 200);
      assert.deepEqual((await updated.json()).attributes, {});
      assert.equal((await api(hub, "/api/states/input_text.careflow_note", { body: { attributes: {} } })).status, 400);
      assert.equal((await api(hub, "/api/states/Not-An-Id", { body: { state: "x" } })).status, 400);
    });

    it("calls actions with POST /api/services, answering the changed states, and records them", async () => {
      const res = await api(hub, "/api/services/light/turn_on", { body: { entity_id: "light.bedroom", brightness: 200 } });
      assert.equal(res.status, 200);
      const changed = await res.json();
      assert.deepEqual(
        changed.map((s: any) => [s.entity_id, s.state, s.attributes.brightness]),
        [["light.bedroom", "on", 200]],
      );
      assert.deepEqual(hub.calls.at(-1), {
        ...hub.calls.at(-1)!,
        domain: "light",
        service: "turn_on",
        via: "rest",
        service_data: { entity_id: "light.bedroom", brightness: 200 },
      });
      assert.equal((await api(hub, "/api/services/light/explode", { body: {} })).status, 400);
      const withResponse = await (
        await api(hub, "/api/services/weather/get_forecasts?return_response", { body: { entity_id: "weather.home", type: "hourly" } })
      ).json();
      assert.deepEqual(withResponse.changed_states, []);
      assert.equal(withResponse.service_response["weather.home"].forecast.length, 5);
    });
  });

  describe("connections", () => {
    it("after dropConnections a new connection sees the changes made meanwhile", async () => {
      const a = await open();
      const b = await open();
      assert.equal(hub.connections(), 2);
      hub.dropConnections();
      assert.equal(await a.closed, 1006, "terminated without a close frame");
      await b.closed;
      assert.equal(hub.connections(), 0);
      hub.setState("binary_sensor.bed_occupancy", "off");
      const c = await open();
      const states = (await c.command({ type: "get_states" })).result;
      assert.equal(states.find((s: any) => s.entity_id === "binary_sensor.bed_occupancy").state, "off");
    });

    it("stop refuses connections and keeps state; restart listens on the same port with the changes", async () => {
      const c = await open();
      const port = hub.port;
      await hub.stop();
      assert.equal(hub.listening, false);
      await c.closed;
      await assert.rejects(fetch(`${hub.url}/api/`));
      hub.setState("binary_sensor.bathroom_presence", "on");
      await hub.restart();
      assert.equal(hub.port, port);
      assert.equal(hub.listening, true);
      const again = await open();
      const states = (await again.command({ type: "get_states" })).result;
      assert.equal(states.find((s: any) => s.entity_id === "binary_sensor.bathroom_presence").state, "on");
      assert.equal((await api(hub, "/api/states/binary_sensor.bathroom_presence").then((r) => r.json())).state, "on");
    });

    it("listens on a given port", async () => {
      const free = net.createServer();
      await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
      const port = (free.address() as net.AddressInfo).port;
      await new Promise((resolve) => free.close(resolve));
      const other = await startFakeHub({ port });
      try {
        assert.equal(other.url, `http://127.0.0.1:${port}`);
        assert.equal(other.wsUrl, `ws://127.0.0.1:${port}/api/websocket`);
        assert.equal(other.token, "fake-hub-token");
        assert.deepEqual(other.states(), []);
      } finally {
        await other.close();
      }
    });
  });
});
