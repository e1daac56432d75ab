/**
 * The demo's rule "A part went quiet" (flows/examples/part-quiet.yaml) end to end, over real
 * HTTP with Node-RED, the fake chat and the fake hub, on a ManualClock: a camera that stops
 * posting, the display that stops polling and the hub going away each give ONE message in the
 * family's chat when the silence has lasted 30 minutes (not one a tick) and ONE when they are
 * back; the sentence names the part and the time in the household's zone. Nothing goes to the
 * senior's screen.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startFakeChat, type FakeChat } from "../../fakes/chat-server";
import { startFakeHub, type FakeHub } from "../../fakes/hub-server";
import { ManualClock } from "../../../runtime/platform/core/clock";
import { SAMPLE_EVERY_MS } from "../../../runtime/platform/health/parts-board";
import { engineQuiet } from "../../support/engine-quiet";
import { eventually } from "../../support/eventually";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../support/test-app";

const MINUTE = 60_000;
const BUNDLE = path.resolve(__dirname, "../../../../flows/examples/part-quiet.yaml");

describe("scenario: a part went quiet, and came back", function () {
  this.timeout(60000);
  let t: TestApp;
  let chat: FakeChat;
  let hub: FakeHub;
  // 13:00 UTC is 14:00 in Berlin.
  const clock = new ManualClock(Date.parse("2026-03-02T13:00:00Z"));
  const alive = new Set<"camera" | "display">();

  const texts = () => chat.messages.map((m) => m.text ?? "");
  const post = () => t.request("POST", "/api/v1/device/camera", { key: KEYS.camera, body: {} });
  const poll = () => t.request("GET", "/api/v1/image/active", { key: null, headers: { authorization: KEYS.display } });
  /** Moves the clock tick by tick; the devices still alive call every other minute; each tick's runs finish. */
  const pass = async (ms: number) => {
    for (let done = 0; done < ms; done += SAMPLE_EVERY_MS) {
      if (done % (2 * MINUTE) === 0) {
        if (alive.has("camera")) await post();
        if (alive.has("display")) await poll();
      }
      clock.advance(SAMPLE_EVERY_MS);
      // The tick's round of probes (a slow database gauge would make the next tick's join it).
      await t.app.ctx.parts?.sampled();
      await t.app.triggers!.idle();
      await engineQuiet(t.app.engine);
    }
  };
  const hhmm = (ms: number) => new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", minute: "2-digit" }).format(ms);

  before(async () => {
    const token = "42:part-quiet-token";
    chat = await startFakeChat({ token, chats: [{ id: 1001, type: "private" }] });
    hub = await startFakeHub({ token: "hub-token-1" });
    const auth = testAuthSettings();
    // No web app key: the tablet is not a part here (its own test is in health-parts.api).
    auth.api_keys = auth.api_keys!.filter((k) => !k.permissions.includes("webapp"));
    auth.device_keys = auth.device_keys!.map((d) =>
      d.sensor_id === "kitchen_cam"
        ? { ...d, name: "Kitchen camera", expect_every_minutes: 5 }
        : d.sensor_id === "hall_display"
          ? { ...d, name: "Hallway e-ink display" }
          : { ...d, expect_every_minutes: null },
    );
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: {
        auth,
        app: { timezone: "Europe/Berlin" },
        hub: { url: hub.url, token: hub.token },
        notifications: { chat_app: { api_base_url: chat.url, token, poll_timeout_seconds: 1, targets: [{ name: "Anna", chat_id: 1001 }] } },
      },
    });
    assert.ok(await t.app.ctx.hub!.client!.whenConnected(5000), "connected to the fake hub");
    const res = await t.request("POST", "/api/v1/rules/import", { rawBody: fs.readFileSync(BUNDLE), headers: { "content-type": "application/yaml" } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.warnings, [], "the demo rule imports cleanly");
    alive.add("camera").add("display");
    await pass(SAMPLE_EVERY_MS);
  });
  after(async () => {
    await t?.close();
    await chat?.close();
    await hub?.close();
  });

  it("a camera that stops posting: one message after 30 minutes of silence, none more; one when it posts again", async () => {
    alive.delete("camera");
    await post();
    const lastPost = clock.now();
    await pass(44 * MINUTE); // silent from +15 minutes
    assert.deepEqual(texts(), []);
    await pass(2 * 60 * MINUTE);
    assert.deepEqual(texts(), [`The kitchen camera has sent nothing since ${hhmm(lastPost)}.`]);

    alive.add("camera");
    const back = clock.now();
    await pass(4 * MINUTE);
    assert.equal(texts().length, 2);
    assert.equal(texts()[1], `The kitchen camera is back since ${hhmm(back)} (it had sent nothing since ${hhmm(lastPost)}).`);
    const runs = (await t.get("/api/v1/workflows")).body as Array<Record<string, any>>;
    assert.ok(runs.every((r) => r.status === "completed"));
    assert.deepEqual(runs[0].pipeline_data.notification_channels, { chat_app: true }, "the chat only, never the senior's screen");
  });

  it("the display that stops polling: one message, one when it polls again", async () => {
    alive.delete("display");
    await poll();
    const lastPoll = clock.now();
    await pass(2 * 60 * MINUTE); // silent after three 10-minute cadences, told 30 minutes later
    assert.deepEqual(texts().slice(2), [`The hallway e-ink display has not been heard from since ${hhmm(lastPoll)}.`]);
    alive.add("display");
    await pass(2 * MINUTE);
    assert.equal(texts().length, 4);
    assert.match(texts()[3], /^The hallway e-ink display is back since/);
  });

  it("the hub going away: one message once it was down for 30 minutes; one when it is back", async () => {
    await hub.stop();
    await eventually("the client to notice", () => !t.app.ctx.hub!.client!.connected);
    await pass(60 * MINUTE);
    assert.equal(texts().length, 5);
    assert.match(texts()[4], /^The home hub has been disconnected since \d\d:\d\d\.$/);
    await hub.restart();
    assert.ok(await t.app.ctx.hub!.client!.whenConnected(10000), "connected again");
    await pass(2 * MINUTE);
    assert.equal(texts().length, 6);
    assert.match(texts()[5], /^The home hub is back since \d\d:\d\d \(it had been disconnected since \d\d:\d\d\)\.$/);
  });
});
