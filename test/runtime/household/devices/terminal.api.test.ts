/**
 * The bedside terminal through the Devices tab: a press acts on the newest open alert
 * (recorded with the terminal's name, escalation stopped), presses and commands fire the
 * terminal's sensor_event rules with what happened in `trigger_input`, and bad input is
 * refused naming the field.
 */
import assert from "node:assert/strict";
import { createAlert, getAlert } from "../../../../runtime/household/alerts/alerts.service";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("terminal input: alerts and rules", function () {
  this.timeout(60000);
  let t: TestApp;
  let ruleId: number;

  before(async () => {
    t = await startTestApp({ nodeRed: true });
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Terminal said", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "bedside_terminal" } },
      steps: [{ label: "what", step_type: "condition", config: { expression: "trigger_input.kind == 'command' and trigger_input.command == 'help'" } }],
      edges: [],
    });
    assert.equal(res.status, 201, res.text);
    ruleId = res.body.rule_id;
  });
  after(() => t.close());

  const press = (body: unknown, key: string | null = KEYS.terminal) => t.request("POST", "/api/v1/device/terminal", { key, body });
  const raise = (description: string) =>
    createAlert(t.app.ctx, { alert_type: "fall", level: "emergency", description, next_escalation_at: new Date(Date.now() + 300_000).toISOString() });
  const runs = async (n: number) => {
    for (let i = 0; i < 300; i++) {
      const list = (await t.get(`/api/v1/workflows?rule_id=${ruleId}`)).body as Array<Record<string, any>>;
      if (list.length >= n && list.every((r) => r.status !== "running")) return list;
      await new Promise((r) => setTimeout(r, 10));
    }
    return (await t.get(`/api/v1/workflows?rule_id=${ruleId}`)).body as Array<Record<string, any>>;
  };

  it("dismisses the newest open alert on a single press, recording the terminal as who did it", async () => {
    const older = await raise("older");
    const newest = await raise("newest");
    const res = await press({ button: "single" });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, "accepted");
    assert.deepEqual(res.body.alert, { id: newest.id, action: "dismiss", level: "emergency" });
    const after = await getAlert(t.app.ctx, newest.id);
    assert.equal(after.resolved, true);
    assert.equal(after.resolved_by, "terminal:bedside_terminal");
    assert.equal(after.next_escalation_at, null, "escalation stops");
    assert.equal(after.actions[0].actor, "terminal:bedside_terminal");
    assert.equal((await getAlert(t.app.ctx, older.id)).resolved, false, "only the newest");
    // The next press takes the next newest.
    assert.equal((await press({})).body.alert.id, older.id);
    assert.equal((await press({})).body.alert, null, "no open alert: nothing to act on");
  });

  it("asks for help on a long press and does nothing to alerts on a double press", async () => {
    const a = await raise("help?");
    assert.equal((await press({ button: "double" })).body.alert, null);
    assert.equal((await getAlert(t.app.ctx, a.id)).resolved, false);
    const res = await press({ button: "long" });
    assert.deepEqual(res.body.alert, { id: a.id, action: "assist", level: "emergency" });
    const after = await getAlert(t.app.ctx, a.id);
    assert.equal(after.assistance_needed, true);
    assert.equal(after.resolved, false);
    assert.equal((await press({ action: "dismiss", alert_id: a.id })).body.alert.id, a.id);
    assert.equal((await getAlert(t.app.ctx, a.id)).resolved, true);
    const gone = await press({ action: "dismiss", alert_id: a.id });
    assert.equal(gone.status, 404);
    assert.match(gone.body.detail, /^alert_id/);
  });

  it("fires the terminal's sensor_event rules with the command or press in trigger_input", async () => {
    const before = (await runs(0)).length;
    assert.equal((await press({ command: "help", args: ["now"] })).status, 200);
    let list = await runs(before + 1);
    assert.equal(list.length, before + 1);
    assert.deepEqual(list[0].pipeline_data.trigger_input, { source: "terminal", button: null, command: "help", args: ["now"], kind: "command" });
    assert.equal(list[0].pipeline_data.condition.result, true);
    assert.equal(list[0].pipeline_data.sensor_id, "bedside_terminal");
    await press({ button: "double" });
    list = await runs(before + 2);
    assert.equal(list[0].pipeline_data.trigger_input.button, "double");
    assert.equal(list[0].pipeline_data.condition.result, false);
  });

  it("refuses bad input naming the field, and other devices' keys", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ button: "triple" }, /^button/],
      [{ command: "" }, /^command/],
      [{ event: "command" }, /^body\.command: required/],
      [{ alert_id: "x" }, /^alert_id/],
      [{ colour: "red" }, /colour: unknown field/],
      [[1, 2], /^body/],
    ];
    for (const [body, detail] of cases) {
      const res = await press(body);
      assert.equal(res.status, 422, `${JSON.stringify(body)} → ${res.text}`);
      assert.match(res.body.detail, detail);
    }
    assert.equal((await press({}, KEYS.camera)).status, 403);
    assert.equal((await press({}, null)).status, 401);
  });
});
