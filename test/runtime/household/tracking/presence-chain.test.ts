/**
 * The presence provider chain: each status from its provider (hub providers through a stub
 * HubStateReader), the confidence floor, priority then recency, disabled providers; and the
 * chain reloaded from the settings file without a restart, a broken file leaving it as it was.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { handler as presenceQuery } from "../../../../nodes/steps/presence_query/presence_query.handler";
import { spec as presenceQuerySpec } from "../../../../nodes/steps/presence_query/presence_query.node";
import { handler as homeStateStep } from "../../../../nodes/steps/home_state/home_state.handler";
import { spec as homeStateSpec } from "../../../../nodes/steps/home_state/home_state.node";
import { appHandlerContext } from "../../../support/app-handler-context";
import { useHubState, type HubEntityState } from "../../../../runtime/household/hub/hub-state";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import type { PersonSighting } from "../../../../runtime/platform/core/event-bus";
import { configOf } from "../../../nodes/filters/_support/tracking-db";
import { stepInput } from "../../../nodes/handler-context";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

/** Tracking on, pointed at a port nothing listens on: the /cts routes answer, no broker is reached. */
const CTS_ON_NO_BROKER = { enabled: true, nats_url: "nats://127.0.0.1:9" };

const T0 = Date.parse("2026-05-04T23:30:00Z");
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe("presence: the provider chain", () => {
  let t: TestApp;
  let clock: ManualClock;
  let hub: Map<string, HubEntityState>;
  const rooms: Record<string, number> = {};
  let dir: string;
  let settingsFile: string;

  const setHub = (entity: string, state: string, changedMinutesAgo = 60) =>
    hub.set(entity, { state, last_changed: iso(clock.now() - changedMinutesAgo * MIN) });
  /** Rose seen by the camera of `room`, `minutesAgo` before now. */
  const seen = async (room: string, minutesAgo: number) => {
    const s: PersonSighting = {
      person_id: "rose",
      person_name: "Rose",
      visitor: false,
      sensor_id: `${room}_cam`,
      room_name: room,
      confidence: 0.9,
      bbox: [],
      at: clock.now() - minutesAgo * MIN,
      media_path: null,
      direction_raw: null,
      direction_semantic: null,
    };
    t.app.ctx.bus.publish("person.sighted", s);
    await t.app.tracking.idle();
  };
  const resolve = () => t.app.services.presence.resolve("rose", clock.now());
  const writeSettings = (text: string) => fs.writeFileSync(settingsFile, text);
  const reload = (key: string = KEYS.admin) => t.request("POST", "/api/v1/cts/presence-config/reload", { key });

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-presence-"));
    settingsFile = path.join(dir, "settings.yaml");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  beforeEach(async () => {
    writeSettings("app:\n  timezone: UTC\n");
    clock = new ManualClock(T0);
    // The reload is a /cts route: it answers only with continuous tracking on (no broker needed here).
    t = await startTestApp({ clock, settingsFile, settings: { cts: CTS_ON_NO_BROKER } });
    for (const name of ["kitchen", "bedroom", "bathroom"]) rooms[name] = (await t.post("/api/v1/rooms", { name })).body.id;
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    hub = new Map();
    useHubState(t.app.ctx, { state: async (id) => hub.get(id) ?? null });
  });
  afterEach(() => t.close());

  it("without a hub the hub providers offer nothing: a fresh location is present_room", async () => {
    useHubState(t.app.ctx, { state: async () => null });
    await seen("kitchen", 2);
    const p = await resolve();
    assert.deepEqual(
      [p.status, p.room_name, p.room_id, p.confidence, p.providers, p.dwell_minutes],
      ["present_room", "kitchen", String(rooms.kitchen), 0.9, ["cts_location", "stale_fallback"], 2],
    );
  });

  it("night_anchor: bed occupied, bedroom lights off, last seen in the bedroom → asleep (0.95)", async () => {
    await seen("bedroom", 20);
    setHub("binary_sensor.rose_bed_occupancy", "on", 15);
    setHub("light.bedroom", "off");
    const p = await resolve();
    assert.deepEqual(
      [p.status, p.room_name, p.room_id, p.confidence, p.providers, p.dwell_minutes, p.timestamp],
      ["asleep", "bedroom", String(rooms.bedroom), 0.95, ["night_anchor", "hub_bed_sensor", "cts_location", "stale_fallback"], 15, iso(T0 - 15 * MIN)],
    );
  });

  it("hub_bed_sensor when the anchor does not hold: a light on, the last room outside its set, a recent move", async () => {
    setHub("binary_sensor.rose_bed_occupancy", "on", 15);
    setHub("light.bedroom", "on");
    let p = await resolve();
    assert.deepEqual([p.status, p.room_name, p.confidence, p.providers], ["asleep", "bedroom", 0.8, ["hub_bed_sensor"]]);

    setHub("light.bedroom", "off");
    await seen("kitchen", 2);
    p = await resolve();
    assert.deepEqual(
      [p.status, p.providers[0]],
      ["asleep", "hub_bed_sensor"],
      "the last room (kitchen) is not an anchor room; the bed sensor outranks the camera",
    );

    // The anchor allows the bathroom as a last room, but a move out of the bedroom within 5 minutes releases it.
    t.app.ctx.settings.presence.providers[0] = {
      ...t.app.ctx.settings.presence.providers[0],
      options: { ...(t.app.ctx.settings.presence.providers[0].options as object), anchor_rooms: ["bedroom", "bathroom"] },
    } as never;
    await seen("bathroom", 1);
    assert.equal((await resolve()).providers[0], "hub_bed_sensor", "released");
    clock.advance(10 * MIN);
    assert.equal((await resolve()).providers[0], "night_anchor", "the release is over");
  });

  it("hub_device_tracker: home → present_home, elsewhere → away, unavailable → no candidate", async () => {
    setHub("device_tracker.rose_phone", "home", 45);
    let p = await resolve();
    assert.deepEqual([p.status, p.room_name, p.confidence, p.providers, p.dwell_minutes], ["present_home", null, 0.6, ["hub_device_tracker"], 45]);
    setHub("device_tracker.rose_phone", "not_home", 5);
    p = await resolve();
    assert.deepEqual([p.status, p.dwell_minutes, p.providers], ["away", null, ["hub_device_tracker"]]);
    setHub("device_tracker.rose_phone", "unavailable", 5);
    p = await resolve();
    assert.deepEqual([p.status, p.providers], ["unknown", ["unknown_sentinel"]]);
  });

  it("stale_fallback under a stale location, outranked by the device tracker; unknown after its ttl", async () => {
    await seen("kitchen", 40);
    let p = await resolve();
    assert.deepEqual([p.status, p.room_name, p.confidence, p.providers], ["stale", null, 0, ["stale_fallback"]]);
    setHub("device_tracker.rose_phone", "home", 120);
    p = await resolve();
    assert.deepEqual([p.status, p.providers], ["present_home", ["hub_device_tracker", "stale_fallback"]]);
    hub.clear();
    clock.advance(21 * MIN); // 61 minutes: past stale_fallback's ttl of 3600 s
    assert.equal((await resolve()).status, "unknown");
  });

  it("drops candidates under presence.min_confidence; equal priority goes to the most recent; disabled providers are skipped", async () => {
    await seen("kitchen", 5);
    setHub("device_tracker.rose_phone", "not_home", 1);
    const tracker = t.app.ctx.settings.presence.providers.find((p) => p.name === "hub_device_tracker")!;
    tracker.priority = 50; // as cts_location
    assert.deepEqual([(await resolve()).status, (await resolve()).providers[0]], ["away", "hub_device_tracker"], "the newer evidence wins a tie");
    hub.set("device_tracker.rose_phone", { state: "not_home", last_changed: iso(clock.now() - 10 * MIN) });
    assert.equal((await resolve()).status, "present_room", "now the camera is newer");
    hub.set("device_tracker.rose_phone", { state: "not_home", last_changed: iso(clock.now() - MIN) });
    (tracker.options as { confidence: number }).confidence = 0.3;
    assert.equal((await resolve()).status, "present_room", "0.3 is under 0.4");
    t.app.ctx.settings.presence.min_confidence = 0.2;
    assert.equal((await resolve()).status, "away");
    tracker.enabled = false;
    assert.equal((await resolve()).status, "present_room");
  });

  it("presence_query and home_state read the chain", async () => {
    setHub("binary_sensor.rose_bed_occupancy", "on", 30);
    setHub("light.bedroom", "off");
    const ctx = appHandlerContext(t.app.ctx);
    const q = await presenceQuery(ctx, stepInput({}, "presence_query"), configOf(presenceQuerySpec, { person_id: "rose" }));
    assert.deepEqual(
      [q.data?.presence_status, q.data?.presence_room_name, q.data?.presence_asleep, q.data?.presence_at_home, q.data?.presence_away],
      ["asleep", "bedroom", true, true, false],
    );
    hub.clear();
    setHub("device_tracker.rose_phone", "home");
    const h = await homeStateStep(ctx, stepInput({ person_id: "rose" }, "home_state"), configOf(homeStateSpec, {}));
    assert.deepEqual(h.data, { home_at_home: true, home_asleep: false, home_away: false, home_state_unknown: false });
  });

  describe("POST /cts/presence-config/reload", () => {
    const chain = async () => (await t.get("/api/v1/admin/config")).body;

    it("swaps the chain from the settings file without a restart", async () => {
      await seen("kitchen", 2);
      setHub("device_tracker.rose_phone", "not_home", 1);
      assert.equal((await resolve()).status, "present_room");
      writeSettings(
        [
          "app:",
          "  timezone: UTC",
          "presence:",
          "  providers:",
          "    - { name: hub_device_tracker, priority: 95, options: { entity: 'device_tracker.{person_id}_watch' } }",
          "    - { name: cts_location, priority: 50, ttl_seconds: 60 }",
        ].join("\n"),
      );
      hub.set("device_tracker.rose_watch", { state: "not_home", last_changed: iso(clock.now() - MIN) });
      const res = await reload();
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.settings_file, settingsFile);
      assert.deepEqual(
        res.body.providers.map((p: { name: string; priority: number; ttl_seconds: number | null }) => [p.name, p.priority, p.ttl_seconds]),
        [
          ["hub_device_tracker", 95, null],
          ["cts_location", 50, 60],
        ],
      );
      const p = await resolve();
      assert.deepEqual([p.status, p.providers], ["away", ["hub_device_tracker"]], "the watch, first; the camera's 2 minutes are past a 60 s ttl");
      const config = await chain();
      assert.equal(JSON.stringify(config).includes("device_tracker.{person_id}_watch"), true, "the effective settings show the new chain");
    });

    it("a file that does not parse or fails the schema answers 422 naming the field and keeps the running chain", async () => {
      await seen("kitchen", 2);
      const before = structuredClone(t.app.ctx.settings.presence);
      const cases: Array<[string, RegExp]> = [
        ["presence:\n  providers: [ {name: night_anchor, priority: 90\n", /does not parse/],
        ["presence:\n  providers:\n    - { name: night_anchor, priority: high }\n", /presence\.providers\.0\.priority/],
        ["presence:\n  providers:\n    - { name: crystal_ball, priority: 99 }\n", /presence\.providers\.0\.name/],
        [
          "presence:\n  providers:\n    - { name: cts_location, priority: 50 }\n    - { name: cts_location, priority: 40 }\n",
          /presence\.providers: a provider is listed twice/,
        ],
        ["presence:\n  min_confidence: 2\n", /presence\.min_confidence/],
        ["app:\n  timezone: Mars/Olympus\n", /app\.timezone/],
        ["- just\n- a list\n", /top level must be an object/],
      ];
      for (const [text, detail] of cases) {
        writeSettings(text);
        const res = await reload();
        assert.equal(res.status, 422, `${text}: ${res.text}`);
        assert.match(res.body.detail, detail);
        assert.match(res.body.detail, /running presence chain is unchanged/);
        assert.deepEqual(t.app.ctx.settings.presence, before);
        assert.equal((await resolve()).status, "present_room");
      }
      fs.rmSync(settingsFile);
      const gone = await reload();
      assert.equal(gone.status, 422);
      assert.match(gone.body.detail, /cannot read/);
    });

    it("is for admins only", async () => {
      for (const key of [KEYS.caregiver, KEYS.mcp, KEYS.webapp]) assert.equal((await reload(key)).status, 403);
    });
  });
});

describe("presence: reload without a settings file", () => {
  it("answers 409: there is no file to read", async () => {
    const t = await startTestApp({ settings: { cts: CTS_ON_NO_BROKER } });
    try {
      const res = await t.post("/api/v1/cts/presence-config/reload");
      assert.equal(res.status, 409, res.text);
      assert.match(res.body.detail, /without a settings file \(CAREFLOW_SETTINGS\)/);
    } finally {
      await t.close();
    }
  });
});
