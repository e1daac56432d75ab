/**
 * What the edit forms ask the server while a caregiver types: the household's names for the
 * pickers, a cron expression in plain words with its next fire times in the household's time
 * zone, and a rule tab as the editor holds it, checked by the deploy's own validator (each
 * problem on its node and field, with position and "did you mean"). Bad input gets a 4xx
 * with a detail.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../runtime/platform/core/clock";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";

type Json = Record<string, any>;

describe("edit form checks (editor admin API)", function () {
  this.timeout(30000);
  let t: TestApp;
  before(async () => {
    // Monday 24 Nov 2026, 07:30 in Berlin.
    t = await startTestApp({ nodeRed: true, clock: new ManualClock(Date.parse("2026-11-24T06:30:00Z")), settings: { app: { timezone: "Europe/Berlin" } } });
    await t.post("/api/v1/rooms", { name: "Küche" });
    await t.post("/api/v1/persons", { display_name: "Rose Miller" });
  });
  after(() => t.close());

  const editor = async (method: string, path: string, body?: unknown, bearer: string = KEYS.caregiver): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.baseUrl}/editor${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Json };
  };

  it("lists the household's sensors, rooms and persons for the pickers (a caregiver may read them)", async () => {
    const res = await editor("GET", "/careflow/household");
    assert.equal(res.status, 200);
    assert.ok(res.body.sensors.some((s: Json) => s.value === "kitchen_cam" && /kitchen_cam/.test(s.label)));
    assert.ok(res.body.rooms.some((r: Json) => r.value === "Küche"));
    assert.ok(res.body.persons.some((p: Json) => /Rose Miller/.test(p.label)));
    assert.equal((await fetch(`${t.baseUrl}/editor/careflow/household`)).status, 401);
  });

  it("words a cron expression and gives its next three fire times in the household's zone", async () => {
    const res = await editor("GET", "/careflow/cron-preview?expression=" + encodeURIComponent("0 8 * * 1-5"));
    assert.equal(res.status, 200);
    assert.equal(res.body.time_zone, "Europe/Berlin");
    assert.match(res.body.description, /08:00/);
    assert.match(res.body.description, /Monday through Friday/);
    assert.deepEqual(
      res.body.next.map((n: Json) => n.at),
      ["2026-11-24T07:00:00.000Z", "2026-11-25T07:00:00.000Z", "2026-11-26T07:00:00.000Z"],
      "Tuesday to Thursday at 08:00 Berlin (UTC+1)",
    );
    assert.match(res.body.next[0].local, /Tue.*24 Nov.*08:00/);
  });

  it("refuses a cron expression that does not parse, or none, with 422 naming it", async () => {
    for (const q of ["?expression=" + encodeURIComponent("61 8 * * *"), "?expression=", "", "?expression=" + encodeURIComponent("every morning")]) {
      const res = await editor("GET", "/careflow/cron-preview" + q);
      assert.equal(res.status, 422, q);
      assert.match(res.body.detail, /^expression: /);
    }
    const words = async (expression: string) => (await editor("GET", "/careflow/cron-preview?expression=" + encodeURIComponent(expression))).body.detail;
    // What the field under it says, in words a caregiver can act on (not "61 is a invalid expression for minute").
    assert.equal(await words("61 8 * * *"), "expression: not a valid cron expression: '61' is not a minute (0–59)");
    assert.equal(await words("0 8 * * 9"), "expression: not a valid cron expression: '9' is not a day of the week (0–7 or sun–sat)");
    assert.equal(
      await words("every morning"),
      "expression: not a valid cron expression: it has 2 parts; a schedule has 5 (minute hour day month weekday), or 6 with the second first",
    );
  });

  const tab = (nodes: Json[]) => ({ tab_id: "tab1", nodes: [{ id: "tab1", type: "tab", label: "Morning pills" }, ...nodes] });
  const trigger = (config: Json = {}) => ({
    id: "trig",
    type: "care-trigger",
    z: "tab1",
    name: "",
    config: { trigger_type: "manual", ...config },
    config_version: 1,
    wires: [["cond"]],
  });
  const condition = (expression: string) => ({
    id: "cond",
    type: "care-condition",
    z: "tab1",
    name: "checked",
    config: { expression },
    config_version: 1,
    wires: [["tell"], []],
  });
  const notify = (message: string) => ({
    id: "tell",
    type: "care-notification",
    z: "tab1",
    name: "tell",
    config: { alert_level: "info", message_template: message },
    config_version: 1,
    wires: [[]],
  });

  it("checks a tab as the editor holds it with the deploy's validator: each problem on its node and field", async () => {
    const res = await editor(
      "POST",
      "/careflow/check-tab",
      tab([
        trigger({ trigger_type: "sensor_event", primary_sensor_id: "no_such_cam" }),
        condition("not verification.verified and ("),
        notify("It is {{sytem.local_time}}"),
      ]),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const on = (node: string, field: RegExp) => res.body.problems.find((p: Json) => p.node_id === node && field.test(p.field));
    const cond = on("cond", /expression/);
    assert.equal(cond.severity, "error");
    assert.equal(typeof cond.position, "number");
    assert.match(cond.text, /rule 'Morning pills', step 'checked', expression: .*at character/);
    assert.equal(on("trig", /primary_sensor_id/).severity, "error", "an unknown sensor");
    const typo = on("tell", /message_template/);
    assert.equal(typo.severity, "warning");
    assert.equal(typo.suggestion, "system");
  });

  it("finds nothing wrong in a good tab, and flags a Node-RED function node in a rule", async () => {
    const good = await editor("POST", "/careflow/check-tab", tab([trigger(), condition("1 == 1"), notify("Time for your pills")]));
    assert.deepEqual(
      good.body.problems.filter((p: Json) => p.severity === "error"),
      [],
    );
    const fn = await editor(
      "POST",
      "/careflow/check-tab",
      tab([trigger(), { id: "fn", type: "function", z: "tab1", name: "my code", func: "return msg", wires: [[]] }]),
    );
    assert.match(fn.body.problems.find((p: Json) => p.node_id === "fn").text, /not a care node/);
  });

  it("answers a malformed tab with a 4xx and a detail, never a 500", async () => {
    const bad: unknown[] = [
      {},
      { tab_id: "tab1" },
      { tab_id: "tab1", nodes: "x" },
      { tab_id: "tab1", nodes: [{ id: 1 }] },
      { tab_id: "tab1", nodes: [] },
      [],
      "null",
      "{",
      { tab_id: "", nodes: [] },
      { tab_id: "t", nodes: [], extra: 1 },
    ];
    for (const body of bad) {
      const res = await editor("POST", "/careflow/check-tab", body);
      assert.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(body)} → ${res.status}`);
    }
    const res = await editor("POST", "/careflow/check-tab", { tab_id: "tab1", nodes: [] });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /^nodes: /);
  });
  it("says which channels a notification's level uses and who would see it (issue 42)", async () => {
    const reminder = await editor("POST", "/careflow/notification-audience", { config: { alert_level: "reminder", message_template: "Pills" } });
    assert.equal(reminder.status, 200, JSON.stringify(reminder.body));
    assert.equal(reminder.body.level_defaults, "Reminder: tablet popup, speaker, e-ink display");
    assert.equal(reminder.body.uses_level_defaults, true);
    assert.match(reminder.body.text, /^Rose Miller's tablet, the hub speaker/, "the senior reads a reminder on her tablet");

    const chat = await editor("POST", "/careflow/notification-audience", { config: { alert_level: "warning", channels: ["chat_app"] } });
    assert.equal(chat.status, 200);
    assert.equal(chat.body.uses_level_defaults, false);
    assert.equal(chat.body.text, "nobody");
    assert.match(chat.body.channels[0].note, /no family chat is set up for the warning level/);

    const bad = await editor("POST", "/careflow/notification-audience", { config: { alert_level: "panic" } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /^config\.alert_level: /);
    assert.equal((await fetch(`${t.baseUrl}/editor/careflow/notification-audience`, { method: "POST" })).status, 401);
  });
});
