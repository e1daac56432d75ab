/**
 * system_health rules on a ManualClock, with a fake firer: a camera that stops posting fires a
 * rule once when its silence has lasted the rule's minutes (however far the clock moves), and
 * once more when it posts again; a silence shorter than that fires neither; a rule for displays
 * fires for the display only; the run's input names the part and says it in a sentence, in the
 * household's time; its config goes out with an export and back with an import. A bad config is
 * refused through REST, naming the field.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { SAMPLE_EVERY_MS } from "../../../../../../runtime/platform/health/parts-board";
import { SystemHealthTrigger } from "../../../../../../runtime/care/core/pipeline/triggers/system-health.trigger";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../../../support/test-app";
import { FakeFirer } from "./trigger-fixture";

const MINUTE = 60_000;

describe("triggers: system_health", function () {
  this.timeout(20000);
  // 13:00 UTC is 14:00 in Berlin (winter time).
  const clock = new ManualClock(Date.parse("2026-03-02T13:00:00Z"));
  const firer = new FakeFirer(clock);
  let t: TestApp;
  let trigger: SystemHealthTrigger;
  let cameraRule: number;
  let displayRule: number;

  const rule = async (body: Record<string, unknown>): Promise<number> => {
    const res = await t.post("/api/v1/rules", { trigger_type: "system_health", ...body });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  // Without Node-RED the frame is refused; the call is the camera's sign of life all the same.
  const post = async () => void (await t.request("POST", "/api/v1/device/camera", { key: KEYS.camera, body: {} }));
  /** Moves the clock in ticks, letting the trigger finish what each tick started. */
  const pass = async (ms: number) => {
    for (let done = 0; done < ms; done += SAMPLE_EVERY_MS) {
      clock.advance(Math.min(SAMPLE_EVERY_MS, ms - done));
      await trigger.idle();
    }
  };
  const calls = (ruleId: number) => firer.calls.filter((c) => c.rule_id === ruleId);

  before(async () => {
    const auth = testAuthSettings();
    auth.device_keys = auth.device_keys!.map((d) => (d.sensor_id === "kitchen_cam" ? { ...d, name: "Kitchen camera", expect_every_minutes: 5 } : d));
    t = await startTestApp({ clock, settings: { auth, app: { timezone: "Europe/Berlin" } } });
    const kitchen = (await t.post("/api/v1/rooms", { name: "Kitchen" })).body.id;
    await t.request("PUT", "/api/v1/sensors/kitchen_cam", { body: { room_id: kitchen } });
    cameraRule = await rule({
      name: "Camera quiet",
      system_health_config: { part_kinds: ["camera"], changes: ["went_silent", "came_back"], min_minutes: 30 },
    });
    displayRule = await rule({ name: "Display late", system_health_config: { part_id: "device:hall_display", changes: ["went_late"] } });
    trigger = new SystemHealthTrigger(t.app.ctx, firer);
    trigger.start();
  });
  after(async () => {
    trigger?.stop();
    await t?.close();
  });

  it("a silent camera fires once when its silence lasted the rule's minutes, however far the clock moves", async () => {
    await post();
    const lastPost = clock.now();
    await pass(44 * MINUTE); // silent from +15 min: 29 minutes of it
    assert.equal(calls(cameraRule).length, 0, "not before the silence lasted 30 minutes");
    await pass(2 * 60 * MINUTE);
    assert.equal(calls(cameraRule).length, 1);
    const [run] = calls(cameraRule);
    assert.equal(run.at, lastPost + 45 * MINUTE, "fired when since + min_minutes passed");
    assert.equal(run.trigger.trigger_type, "system_health");
    assert.equal(run.trigger.sensor_id, "kitchen_cam");
    assert.equal(run.trigger.room_name, "Kitchen");
    assert.deepEqual(run.trigger_input, {
      part_id: "device:kitchen_cam",
      part_kind: "camera",
      part_name: "Kitchen camera",
      change: "went_silent",
      state: "silent",
      previous_state: "late",
      since: new Date(lastPost + 15 * MINUTE).toISOString(),
      last_seen: new Date(lastPost).toISOString(),
      sentence: "The kitchen camera has sent nothing since 14:00.",
      detail: `nothing since ${new Date(lastPost).toISOString()}`,
    });
  });

  it("the camera posting again fires the return once", async () => {
    await post();
    await pass(SAMPLE_EVERY_MS);
    await pass(4 * MINUTE);
    assert.equal(calls(cameraRule).length, 2);
    const back = calls(cameraRule)[1].trigger_input!;
    assert.equal(back.change, "came_back");
    assert.equal(back.state, "ok");
    assert.equal(back.previous_state, "silent");
    assert.match(String(back.sentence), /^The kitchen camera is back since 16:\d\d \(it had sent nothing since 14:00\)\.$/);
  });

  it("a silence shorter than the rule's minutes fires neither the change nor a return", async () => {
    await pass(25 * MINUTE); // silent for 10 minutes
    await post();
    await pass(10 * MINUTE);
    assert.equal(calls(cameraRule).length, 2);
  });

  it("two hours in one move of the clock: one run for the silence, one for the return", async () => {
    clock.advance(2 * 60 * MINUTE);
    await trigger.idle();
    assert.deepEqual(
      calls(cameraRule).map((c) => c.trigger_input!.change),
      ["went_silent", "came_back", "went_silent"],
    );
    await post();
    clock.advance(SAMPLE_EVERY_MS);
    await trigger.idle();
    clock.advance(SAMPLE_EVERY_MS);
    await trigger.idle();
    assert.deepEqual(
      calls(cameraRule).map((c) => c.trigger_input!.change),
      ["went_silent", "came_back", "went_silent", "came_back"],
    );
  });

  it("a rule for one part fires for it alone, once", () => {
    // The display (late after 10 minutes without a poll) and the terminal went late long ago.
    assert.equal(calls(displayRule).length, 1);
    assert.equal(calls(displayRule)[0].trigger_input!.part_id, "device:hall_display");
    assert.equal(calls(displayRule)[0].trigger_input!.change, "went_late");
  });

  it("a rule's parts and changes go out with its export and come back with its import", async () => {
    const exported = (await t.get(`/api/v1/rules/${cameraRule}/export`)).body;
    assert.deepEqual(exported.rule.system_health_config, { part_kinds: ["camera"], part_id: null, changes: ["went_silent", "came_back"], min_minutes: 30 });
    const again = await t.post("/api/v1/rules/import", { ...exported, rule: { ...exported.rule, name: "Camera quiet, again" } });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual((await t.get(`/api/v1/rules/${again.body.rule_id}`)).body.system_health_config, exported.rule.system_health_config);
    assert.equal((await t.request("DELETE", `/api/v1/rules/${again.body.rule_id}`)).status < 300, true);
  });

  it("refuses a config that does not fit, naming the field", async () => {
    for (const [config, field] of [
      [{ changes: ["went_sideways"] }, /system_health_config\.changes/],
      [{ changes: [] }, /system_health_config\.changes/],
      [{ min_minutes: -1 }, /system_health_config\.min_minutes/],
      [{ part_kinds: ["toaster"] }, /system_health_config\.part_kinds/],
      [{ colour: "red" }, /system_health_config/],
    ] as const) {
      const res = await t.post("/api/v1/rules", { name: "bad", trigger_type: "system_health", system_health_config: config });
      assert.equal(res.status, 422, JSON.stringify(config));
      assert.match(res.body.detail, field);
    }
  });
});
