/**
 * The README's rule "tell me when Rose enters the kitchen", end to end: imported through
 * REST, fired by the location event a sighting publishes, its room filter and condition
 * deciding, its notification reaching the family's chat (never the senior's own screen: it
 * speaks about her to the family).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { startFakeChat, type FakeChat } from "../../fakes/chat-server";
import { ManualClock } from "../../../runtime/platform/core/clock";
import type { PersonSighting } from "../../../runtime/platform/core/event-bus";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";

/** The rule exactly as the README shows it (its `rose-kitchen.json`), so the two cannot drift apart. */
function readmeRule(): Record<string, unknown> {
  const readme = fs.readFileSync(path.resolve(__dirname, "../../../../README.md"), "utf8");
  const m = /cat > rose-kitchen\.json <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(readme);
  assert.ok(m, "the README shows rose-kitchen.json");
  return JSON.parse(m[1]) as Record<string, unknown>;
}

describe("scenario: tell me when Rose enters the kitchen", function () {
  this.timeout(30000);
  let t: TestApp;
  let ws: WebSocket;
  let chat: FakeChat;
  let ruleId: number;
  const frames: Array<Record<string, unknown>> = [];
  const clock = new ManualClock(Date.parse("2026-06-01T09:00:00Z"));

  const see = async (o: Partial<PersonSighting>) => {
    t.app.ctx.bus.publish("person.sighted", {
      person_id: "rose",
      person_name: "Rose",
      visitor: false,
      sensor_id: "kitchen_cam",
      room_name: null,
      confidence: 0.9,
      bbox: [],
      at: clock.now(),
      media_path: null,
      direction_raw: "left-to-right",
      direction_semantic: "entering",
      ...o,
    });
    await t.app.tracking.idle();
  };
  const runs = async (n: number) => {
    for (let i = 0; i < 300; i++) {
      const list = (await t.get(`/api/v1/workflows?rule_id=${ruleId}`)).body as Array<Record<string, any>>;
      if (list.length >= n && list.every((r) => r.status !== "running")) return list;
      await new Promise((r) => setTimeout(r, 10));
    }
    return (await t.get(`/api/v1/workflows?rule_id=${ruleId}`)).body as Array<Record<string, any>>;
  };
  const popups = () => frames.filter((f) => f.type === "info").map((f) => f.message);
  const chatTexts = () => chat.messages.map((m) => m.text ?? "");

  before(async () => {
    const token = "42:kitchen-scenario-token";
    chat = await startFakeChat({ token, chats: [{ id: 1001, type: "private" }] });
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: { notifications: { chat_app: { api_base_url: chat.url, token, poll_timeout_seconds: 1, targets: [{ name: "Anna", chat_id: 1001 }] } } },
    });
    const kitchen = (await t.post("/api/v1/rooms", { name: "kitchen" })).body.id;
    const hallway = (await t.post("/api/v1/rooms", { name: "hallway" })).body.id;
    await t.request("PUT", "/api/v1/sensors/kitchen_cam", { body: { room_id: kitchen } });
    await t.post("/api/v1/sensors", { sensor_id: "hall_cam", name: "hall camera", sensor_type: "camera", room_id: hallway });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    await t.post("/api/v1/persons", { person_id: "tom", display_name: "Tom" });
    const res = await t.post("/api/v1/rules/import", readmeRule());
    assert.equal(res.status, 201, res.text);
    ruleId = res.body.rule_id;
    ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`, [KEYS.webapp]);
    ws.on("message", (d) => frames.push(JSON.parse(String(d))));
    await new Promise((r) => ws.once("open", r));
  });
  after(async () => {
    ws.close();
    await t.close();
    await chat.close();
  });

  it("notifies when Rose enters the kitchen, and not for Tom, the hallway or Rose staying there", async () => {
    await see({ sensor_id: "hall_cam" }); // the hallway: the room filter holds it, no run
    assert.equal((await runs(0)).length, 0);

    clock.advance(60_000);
    await see({}); // Rose enters the kitchen
    let list = await runs(1);
    assert.equal(list.length, 1);
    assert.equal(list[0].status, "completed");
    assert.deepEqual(list[0].pipeline_data.trigger_input, {
      kind: "location",
      person_id: "rose",
      person_name: "Rose",
      from_room: "hallway",
      to_room: "kitchen",
      source: "camera",
      direction_semantic: "entering",
    });
    assert.equal(list[0].pipeline_data.condition.result, true);
    assert.equal(list[0].pipeline_data.notification_dispatched, true);
    assert.deepEqual(list[0].pipeline_data.notification_channels, { chat_app: true });
    assert.equal(chatTexts().length, 1);
    assert.match(chatTexts()[0], /Rose entered the kitchen/);
    // The run's sends are done by the time it completed: nothing went to Rose's own screen.
    assert.deepEqual(popups(), []);

    clock.advance(60_000);
    await see({ direction_semantic: null }); // still in the kitchen: no change, no event
    clock.advance(60_000);
    await see({ person_id: "tom", person_name: "Tom" }); // Tom enters: the condition says no
    list = await runs(2);
    assert.equal(list.length, 2);
    assert.equal(list[0].pipeline_data.trigger_input.person_id, "tom");
    assert.equal(list[0].pipeline_data.condition.result, false);
    assert.equal(list[0].pipeline_data.notification_dispatched, undefined);
    assert.equal(chatTexts().length, 1, "one notification, for Rose");
    assert.deepEqual(popups(), []);
  });
});
