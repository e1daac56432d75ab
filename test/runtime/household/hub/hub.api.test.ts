/**
 * The home hub end to end against the fake hub (its WebSocket and REST protocol): sync of
 * areas and sensors (twice, no duplicates), occupancy from a hub presence sensor firing an
 * occupancy_duration rule at min_minutes on the test clock, hub_action within and outside the
 * allow-list, a reminder synthesised by the local TTS service and played on the speaker, the
 * location helper, the weather, and a dropped connection or a hub restart losing no change.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { startFakeHub, type FakeHub } from "../../../fakes/hub-server";
import { startTts, type RunningTts } from "../../../tts/helpers";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { engineQuiet } from "../../../support/engine-quiet";
import { eventually, importRule as importRuleInto, runsOf as runsOfRule } from "../../../support/eventually";

const PUBLIC = "http://careflow.test";

describe("the home hub", function () {
  this.timeout(60000);
  let hub: FakeHub;
  let tts: RunningTts;
  let t: TestApp;
  const clock = new ManualClock(Date.now());

  before(async () => {
    hub = await startFakeHub({
      token: "hub-token-1",
      areas: [
        { area_id: "bathroom", name: "Bathroom" },
        { area_id: "kitchen", name: "Kitchen" },
        { area_id: "bedroom", name: "Bedroom" },
      ],
      states: [
        { entity_id: "binary_sensor.bathroom_presence", state: "off", attributes: { device_class: "occupancy", friendly_name: "Bathroom presence" } },
        { entity_id: "sensor.kitchen_illuminance", state: "120", attributes: { device_class: "illuminance", unit_of_measurement: "lx" } },
        { entity_id: "light.bedroom", state: "off", attributes: {} },
        { entity_id: "media_player.kitchen_speaker", state: "idle", attributes: {} },
        { entity_id: "media_player.bathroom_speaker", state: "idle", attributes: {} },
        {
          entity_id: "weather.home",
          state: "rainy",
          attributes: {
            temperature: 11.5,
            temperature_unit: "°C",
            humidity: 80,
            wind_speed: 14,
            wind_speed_unit: "km/h",
            forecast: [{ condition: "sunny" }, { condition: "cloudy" }, { condition: "rainy" }, { condition: "snowy" }],
          },
        },
      ],
      entityRegistry: [
        { entity_id: "binary_sensor.bathroom_presence", area_id: "bathroom", device_id: null },
        { entity_id: "sensor.kitchen_illuminance", area_id: null, device_id: "dev-kitchen" },
        { entity_id: "light.bedroom", area_id: "bedroom", device_id: null },
      ],
      deviceRegistry: [{ id: "dev-kitchen", area_id: "kitchen", name: "Kitchen multisensor" }],
    });
    tts = await startTts();
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: {
        app: { public_url: PUBLIC },
        tts: { url: tts.url },
        hub: {
          url: hub.url,
          token: hub.token,
          media_player: "media_player.kitchen_speaker",
          speakers: { bathroom: "media_player.bathroom_speaker" },
          weather_entity: "weather.home",
        },
      },
    });
    assert.ok(await t.app.ctx.hub!.client!.whenConnected(5000), "connected to the fake hub");
  });
  after(async () => {
    await t?.close();
    await tts?.close();
    await hub?.close();
  });

  const importRule = (bundle: Record<string, unknown>) => importRuleInto(t, bundle);
  const runsOf = (ruleId: number) => runsOfRule(t, ruleId);
  const settled = (ruleId: number, n: number) =>
    eventually(`${n} finished runs of rule ${ruleId}`, async () => {
      const runs = await runsOf(ruleId);
      return runs.length >= n && runs.every((r) => !["running", "pending"].includes(r.status)) ? runs : undefined;
    });

  it("imports the hub's areas as rooms and its area sensors as sensors, twice without duplicates", async () => {
    const first = await t.post("/api/v1/ha/sync/rooms");
    assert.equal(first.status, 200, first.text);
    assert.deepEqual([first.body.created, first.body.updated, first.body.unchanged, first.body.total], [3, 0, 0, 3]);
    const again = await t.post("/api/v1/ha/sync/rooms");
    assert.deepEqual([again.body.created, again.body.updated, again.body.unchanged], [0, 0, 3]);
    const rooms = (await t.get("/api/v1/rooms")).body as Array<{ name: string; ha_area_id: string }>;
    assert.deepEqual(rooms.map((r) => [r.name, r.ha_area_id]).sort(), [
      ["Bathroom", "bathroom"],
      ["Bedroom", "bedroom"],
      ["Kitchen", "kitchen"],
    ]);

    const sensors = await t.post("/api/v1/ha/sync/sensors");
    assert.equal(sensors.status, 200, sensors.text);
    assert.deepEqual([sensors.body.created, sensors.body.unchanged], [2, 0]);
    assert.deepEqual(
      sensors.body.skipped.map((s: { id: string }) => s.id),
      ["light.bedroom"],
    );
    const sensorsAgain = await t.post("/api/v1/ha/sync/sensors");
    assert.deepEqual([sensorsAgain.body.created, sensorsAgain.body.updated, sensorsAgain.body.unchanged], [0, 0, 2]);
    const bath = (await t.get("/api/v1/sensors/binary_sensor.bathroom_presence")).body;
    assert.equal(bath.sensor_type, "presence");
    assert.equal(bath.room_name, "Bathroom");
    assert.equal(bath.source, "hub");
    assert.equal((await t.get("/api/v1/sensors/sensor.kitchen_illuminance")).body.room_name, "Kitchen", "the area of the entity's device");
  });

  it("shows hub presence as occupancy and fires an occupancy_duration rule at min_minutes, whose hub_action turns a light on", async () => {
    const ruleId = await importRule({
      rule: {
        name: "Long bathroom visit",
        trigger_type: "occupancy_duration",
        primary_sensor_ref: { kind: "sensor", label: "binary_sensor.bathroom_presence" },
        occupancy_config: { min_minutes: 20 },
      },
      steps: [
        { label: "light", step_type: "hub_action", config: { domain: "light", service: "turn_on", entity_id: "light.bedroom", data: { brightness_pct: 30 } } },
      ],
      edges: [],
    });
    hub.clearCalls();
    hub.setState("binary_sensor.bathroom_presence", "on", { device_class: "occupancy" });
    const occ = await eventually("the bathroom to be occupied", async () => {
      const body = (await t.get("/api/v1/occupancy")).body;
      return body.occupancy?.Bathroom?.occupied ? body.occupancy.Bathroom : undefined;
    });
    assert.equal(occ.room, "Bathroom");
    assert.equal(occ.sensors[0].sensor_id, "binary_sensor.bathroom_presence");
    clock.advance(19 * 60_000);
    await t.app.triggers!.idle(); // an occupancy firing due by now started inside advance()
    await engineQuiet(t.app.engine);
    assert.equal((await runsOf(ruleId)).length, 0, "not before min_minutes");
    assert.equal((await t.get("/api/v1/occupancy?room_name=bathroom")).body.occupancy.Bathroom.over_time_limit, false);
    clock.advance(60_000);
    const [run] = await settled(ruleId, 1);
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.equal(run.pipeline_data.occupancy_duration_minutes >= 20, true);
    assert.deepEqual(run.pipeline_data.hub_action, { domain: "light", service: "turn_on", entity_id: "light.bedroom", success: true });
    const call = await eventually("the light call", () => hub.calls.find((c) => c.domain === "light" && c.service === "turn_on"));
    assert.deepEqual(call.target, { entity_id: "light.bedroom" });
    assert.equal(call.service_data.brightness_pct, 30);
    assert.equal(hub.state("light.bedroom")?.state, "on");
    assert.equal((await t.get("/api/v1/occupancy")).body.occupancy.Bathroom.over_time_limit, true, "past the 20 minute bathroom limit");
  });

  it("refuses a service outside hub.allowed_services: success=false with the reason, the run goes on", async () => {
    const ruleId = await importRule({
      rule: { name: "Unlock", trigger_type: "manual" },
      steps: [
        { label: "unlock", step_type: "hub_action", config: { domain: "lock", service: "unlock", entity_id: "lock.front_door" } },
        { label: "after", step_type: "condition", config: { expression: "true" } },
      ],
      edges: [{ source_label: "unlock", source_port: "main", target_label: "after" }],
    });
    hub.clearCalls();
    await t.post(`/api/v1/rules/${ruleId}/execute`);
    const [run] = await settled(ruleId, 1);
    assert.equal(run.pipeline_data.hub_action.success, false);
    assert.equal(run.pipeline_data.condition.result, true, "the run went on");
    const step = run.step_timings.find((s: { label: string }) => s.label === "unlock");
    assert.match(step.error, /'lock\.unlock' is not in hub\.allowed_services/);
    assert.equal(
      hub.calls.some((c) => c.domain === "lock"),
      false,
    );
  });

  it("speaks a reminder: synthesised by the TTS service, stored, played on the speaker of the room", async () => {
    const ruleId = await importRule({
      rule: { name: "Medicine reminder", trigger_type: "manual" },
      steps: [
        {
          label: "say",
          step_type: "notification",
          config: { alert_level: "reminder", channels: ["hub_speaker_tts"], message_template: "Rose, it is time for your evening medicine." },
        },
      ],
      edges: [],
    });
    hub.clearCalls();
    await t.post(`/api/v1/rules/${ruleId}/execute`);
    const [run] = await settled(ruleId, 1);
    assert.equal(run.pipeline_data.notification_channels.hub_speaker_tts, true, JSON.stringify(run.pipeline_data));
    const play = await eventually("play_media", () => hub.calls.find((c) => c.service === "play_media"));
    assert.deepEqual(play.target, { entity_id: "media_player.kitchen_speaker" }, "no room: the default speaker");
    const url = String(play.service_data.media_content_id);
    assert.ok(url.startsWith(`${PUBLIC}/api/v1/media/speech/`), url);
    const audio = await fetch(t.baseUrl + url.slice(PUBLIC.length));
    assert.equal(audio.status, 200);
    assert.equal(audio.headers.get("content-type"), "audio/mpeg");
    assert.ok((await audio.arrayBuffer()).byteLength > 1000, "an MP3 of the sentence");
    assert.equal((await fetch(t.baseUrl + url.slice(PUBLIC.length).replace(/sig=[^&]+/, "sig=x"))).status, 403);
  });

  it("without app.public_url, the speaker fetches the audio at this host's network address and the port", async () => {
    const nic = { address: "192.168.1.20", family: "IPv4", internal: false, netmask: "", mac: "", cidr: null } as never;
    const own = await startTestApp({
      networkInterfaces: () => ({ eth0: [nic] }),
      settings: { tts: { url: tts.url }, hub: { url: hub.url, token: hub.token, media_player: "media_player.kitchen_speaker" } },
    });
    try {
      assert.ok(await own.app.ctx.hub!.client!.whenConnected(5000), "connected to the fake hub");
      hub.clearCalls();
      const said = await own.app.services.hub.speak(
        { text: "Rose, it is time for your evening medicine.", media_player: null, room_name: null },
        new AbortController().signal,
      );
      assert.ok(said.ok, JSON.stringify(said));
      const household = `http://192.168.1.20:${new URL(own.baseUrl).port}`;
      const play = await eventually("play_media", () => hub.calls.find((c) => c.service === "play_media"));
      const url = String(play.service_data.media_content_id);
      assert.ok(url.startsWith(`${household}/api/v1/media/speech/`), url);
      const audio = await fetch(own.baseUrl + url.slice(household.length));
      assert.equal(audio.status, 200, "the same clip, served to whoever has the URL");
      assert.equal(audio.headers.get("content-type"), "audio/mpeg");
    } finally {
      await own.close();
    }
  });

  it("sets the person's location helper on the hub, creating it when missing", async () => {
    t.app.ctx.bus.publish("sensor.event", {
      kind: "location",
      sensor_id: "kitchen_cam",
      room_name: "Kitchen",
      input: { person_id: "rose", person_name: "Rose", from_room: "Bedroom", to_room: "Kitchen", source: "camera", direction_semantic: null },
    });
    await eventually("input_text.cc_rose_location", () => hub.state("input_text.cc_rose_location")?.state === "Kitchen");
  });

  it("reads the weather entity, and runs see it as system.weather", async () => {
    const ruleId = await importRule({
      rule: { name: "Umbrella", trigger_type: "manual" },
      steps: [{ label: "wet?", step_type: "condition", config: { expression: "system.weather.state == 'rainy'" } }],
      edges: [],
    });
    await t.post(`/api/v1/rules/${ruleId}/execute`);
    const [run] = await settled(ruleId, 1);
    assert.equal(run.pipeline_data.condition.result, true);
    assert.equal(run.pipeline_data.system.weather.temperature, 11.5);
    const w = t.app.services.hub.weather();
    assert.ok(w.ok);
    assert.deepEqual(w.value, {
      state: "rainy",
      temperature: 11.5,
      temperature_unit: "°C",
      humidity: 80,
      wind_speed: 14,
      wind_speed_unit: "km/h",
      forecast: [{ condition: "sunny" }, { condition: "cloudy" }, { condition: "rainy" }],
    });
  });

  it("feeds the hub-backed presence providers: Rose's phone at home makes her present_home, away makes her away", async () => {
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    hub.setState("device_tracker.rose_phone", "home", { source_type: "router" });
    const presence = t.app.services.presence;
    const home = await eventually("present_home", async () => {
      const p = await presence.resolve("rose", clock.now());
      return p.status === "present_home" ? p : undefined;
    });
    assert.equal(home.providers[0], "hub_device_tracker");
    hub.setState("device_tracker.rose_phone", "not_home", { source_type: "router" });
    await eventually("away", async () => (await presence.resolve("rose", clock.now())).status === "away");
  });

  it("loses no change across a dropped connection or a hub restart", async () => {
    hub.setState("binary_sensor.bathroom_presence", "off", { device_class: "occupancy" });
    await eventually("the bathroom to be free", async () => (await t.get("/api/v1/occupancy")).body.occupancy.Bathroom.occupied === false);
    hub.dropConnections();
    hub.setState("binary_sensor.bathroom_presence", "on", { device_class: "occupancy" });
    await eventually("the change made while disconnected", async () => (await t.get("/api/v1/occupancy")).body.occupancy.Bathroom.occupied === true);
    await hub.stop();
    hub.setState("binary_sensor.bathroom_presence", "off", { device_class: "occupancy" });
    await hub.restart();
    await eventually(
      "the change made while the hub was down",
      async () => (await t.get("/api/v1/occupancy")).body.occupancy.Bathroom.occupied === false,
      15000,
    );
    assert.ok(t.app.ctx.hub!.client!.connected);
  });

  describe("without a hub", () => {
    let bare: TestApp;
    before(async () => {
      bare = await startTestApp({ nodeRed: true });
    });
    after(() => bare.close());

    it("answers hub steps success=false saying why, and syncs with 503", async () => {
      const res = await bare.post("/api/v1/ha/sync/rooms");
      assert.equal(res.status, 503);
      assert.match(res.body.detail, /hub is not set up/);
      const answer = await bare.app.services.hub.call({ domain: "light", service: "turn_on", entity_id: "light.x", data: {} }, new AbortController().signal);
      assert.equal(answer.ok, false);
      assert.match((answer as { reason: string }).reason, /hub is not set up/);
    });
  });
});
