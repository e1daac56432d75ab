/**
 * Every part has a state (issue 44 §1), over real HTTP on a fresh app and a ManualClock: a
 * camera with a cadence that stops posting goes late after it, then silent, and is ok again
 * when it posts; the fake hub going away is late, then down after the grace, and ok when it is
 * back; a display's poll is its contact; the tablet is down with no web app on /ws past its
 * grace and ok once one connects; `/health` carries the summary; caregivers read the parts,
 * devices do not.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import net from "node:net";
import WebSocket from "ws";
import { HUB_GRACE_MS, TABLET_GRACE_MS, TRACKING_GRACE_MS } from "../../../../runtime/app/ops/health-parts";
import { SAMPLE_EVERY_MS, type PartView } from "../../../../runtime/platform/health/parts-board";
import { startFakeHub, type FakeHub } from "../../../fakes/hub-server";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";

const MINUTE = 60_000;

describe("the parts and their states", function () {
  this.timeout(30000);
  let hub: FakeHub;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));

  const parts = async (): Promise<Record<string, PartView>> => {
    const res = await t.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return Object.fromEntries(res.body.parts.map((p) => [p.id, p]));
  };
  const part = async (id: string): Promise<PartView> => (await parts())[id];
  const postFrame = () => t.request("POST", "/api/v1/device/camera", { key: KEYS.camera, body: {} });

  before(async () => {
    hub = await startFakeHub({ token: "hub-token-1" });
    const auth = testAuthSettings();
    // The kitchen camera is expected every 5 minutes here (a motion camera has no cadence by default).
    auth.device_keys = auth.device_keys!.map((d) => (d.sensor_id === "kitchen_cam" ? { ...d, expect_every_minutes: 5 } : d));
    t = await startTestApp({ clock, settings: { auth, hub: { url: hub.url, token: hub.token } } });
    assert.ok(await t.app.ctx.hub!.client!.whenConnected(5000), "connected to the fake hub");
  });
  after(async () => {
    await t?.close();
    await hub?.close();
  });

  it("lists every part with its kind, state, last contact and since when", async () => {
    const all = await parts();
    assert.deepEqual(
      ["database", "device:bedside_terminal", "device:hall_display", "device:kitchen_cam", "disk", "event_loop", "hub", "tablet"].filter((id) => !all[id]),
      [],
    );
    assert.equal(all["device:hall_display"].expect_every_minutes, 10);
    assert.equal(all["device:kitchen_cam"].kind, "camera");
    assert.equal(all.database.state, "ok");
    for (const p of Object.values(all)) assert.ok(["ok", "late", "silent", "down"].includes(p.state), p.id);
  });

  it("a camera that stops posting goes late after its cadence, then silent; a post makes it ok", async () => {
    await postFrame();
    const lastPost = clock.now();
    let cam = await part("device:kitchen_cam");
    assert.equal(cam.state, "ok");
    assert.equal(cam.last_seen, new Date(lastPost).toISOString());

    clock.advance(5 * MINUTE - 1000);
    assert.equal((await part("device:kitchen_cam")).state, "ok");
    clock.advance(2000);
    cam = await part("device:kitchen_cam");
    assert.equal(cam.state, "late");
    assert.equal(cam.since, new Date(lastPost + 5 * MINUTE).toISOString());

    clock.advance(10 * MINUTE);
    cam = await part("device:kitchen_cam");
    assert.equal(cam.state, "silent");
    assert.equal(cam.since, new Date(lastPost + 15 * MINUTE).toISOString());
    assert.match(cam.detail ?? "", /nothing since/);

    await postFrame();
    cam = await part("device:kitchen_cam");
    assert.equal(cam.state, "ok");
    assert.equal(cam.since, new Date(clock.now()).toISOString());
  });

  it("an e-ink display's poll with a bare Authorization key is its contact", async () => {
    const before = await part("device:hall_display");
    clock.advance(1000);
    const res = await t.request("GET", "/api/v1/image/active", { key: null, headers: { authorization: KEYS.display } });
    assert.ok(res.status < 500, String(res.status));
    const after = await part("device:hall_display");
    assert.equal(after.last_seen, new Date(clock.now()).toISOString());
    assert.notEqual(after.last_seen, before.last_seen);
    assert.equal(after.state, "ok");
  });

  it("the senior's tablet: down when no web app has been on /ws past the grace, ok once it connects", async () => {
    clock.advance(TABLET_GRACE_MS + SAMPLE_EVERY_MS);
    assert.equal((await part("tablet")).state, "down");
    const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws?api_key=${KEYS.webapp}`);
    try {
      await new Promise((r) => ws.once("open", r));
      await eventually("the tablet counted", () => t.app.ctx.webapp.size > 0);
      clock.advance(SAMPLE_EVERY_MS);
      const tablet = await part("tablet");
      assert.equal(tablet.state, "ok");
    } finally {
      ws.close();
    }
  });

  it("the hub going away is late, then down after the grace; back, it is ok", async () => {
    await hub.stop();
    await eventually("the client to notice", () => !t.app.ctx.hub!.client!.connected);
    const noticedBy = clock.now();
    // The next tick on the clock finds it down.
    clock.advance(SAMPLE_EVERY_MS);
    const late = await part("hub");
    assert.equal(late.state, "late");
    const wentAt = Date.parse(late.since);
    assert.ok(wentAt > noticedBy && wentAt <= clock.now(), late.since);

    clock.advance(HUB_GRACE_MS);
    let h = await part("hub");
    assert.equal(h.state, "down");
    assert.equal(h.since, new Date(wentAt + HUB_GRACE_MS).toISOString());
    const health = await t.request("GET", "/health", { key: null });
    assert.equal(health.body.parts.state, "down");
    assert.ok(health.body.parts.not_ok.includes("hub"));
    assert.equal(health.body.database.ok, true, "the existing fields stay");

    await hub.restart();
    assert.ok(await t.app.ctx.hub!.client!.whenConnected(10000), "connected again");
    const backBy = clock.now();
    clock.advance(SAMPLE_EVERY_MS);
    h = await part("hub");
    assert.equal(h.state, "ok");
    assert.ok(Date.parse(h.since) > backBy && Date.parse(h.since) <= clock.now(), h.since);
    assert.equal(h.last_seen, h.since);
  });

  it("caregivers and admins read the parts; a device key may not", async () => {
    assert.equal((await t.get("/api/v1/admin/health/parts")).status, 200);
    assert.equal((await t.get("/api/v1/admin/health/parts", KEYS.display)).status, 403);
    assert.equal((await t.request("GET", "/api/v1/admin/health/parts", { key: null })).status, 401);
  });
});

describe("the tracking link's part", function () {
  this.timeout(30000);
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));

  before(async () => {
    // A broker nobody listens at: the link never connects.
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    t = await startTestApp({ clock, settings: { cts: { enabled: true, nats_url: `nats://127.0.0.1:${closed}` } } });
  });
  after(() => t?.close());

  it("is late while the broker does not answer, down after the grace, saying why", async () => {
    clock.advance(SAMPLE_EVERY_MS);
    const late = (await t.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver)).body.parts.find((p) => p.id === "tracking");
    assert.equal(late?.state, "late");
    clock.advance(TRACKING_GRACE_MS);
    const down = (await t.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver)).body.parts.find((p) => p.id === "tracking");
    assert.equal(down?.state, "down");
    assert.ok(down?.detail, "says why");
  });
});
