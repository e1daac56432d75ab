/**
 * kill -9, six times, at the moments that matter: a run parked at a wait, a run just past
 * its wait with its webhook half sent, a run waiting for the senior's answer, an alert's
 * escalation half sent, many runs parked at once, and a camera batch still gathering frames. After each restart every run is
 * accounted for (completed, or failed with a visible reason), no step sends twice, no alert
 * is raised twice, and no send repeats an idempotency key but an escalation repetition cut
 * short by the kill, sent again once (a missed emergency is worse than a repeated one).
 */
import assert from "node:assert/strict";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../fakes/webhook-receiver";
import { keyedApi, operatorEnv, startService, type ServiceProcess } from "../support/service-process";
import { freshDatabase, type TestDatabase } from "../support/test-db";
import { eventually } from "../support/eventually";

const ADMIN = "crash-admin-key-0001";
const CAMERA = "CRASHCAM";
type Json = Record<string, any>;

describe("security: crash safety under kill -9", function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let rx: WebhookReceiver;
  let svc: ServiceProcess | undefined;
  let env: NodeJS.ProcessEnv;
  let kills = 0;

  before(async () => {
    db = await freshDatabase(); // SQLite in its data dir, or a fresh PostgreSQL database in CI's second pass
    rx = await startWebhookReceiver();
    const settings = {
      auth: { device_keys: [{ key: CAMERA, sensor_id: "crash_cam", device_type: "camera_device" }] },
      aggregator: { window_seconds: 4, batch_size: 5, cooldown_seconds: 0 },
      notifications: {
        webhook: { url: rx.url, timeout_seconds: 60 },
        levels: {
          info: { channels: ["webhook"] },
          // Every 3 s, enough times that test 4 always finds a next repetition after its kill,
          // however slowly the tests before it ran (4 ran out on a loaded box: the one in flight was the last).
          warning: { channels: ["webhook"], escalation_minutes: 0.05, repeat_count: 20 },
        },
      },
    };
    env = operatorEnv(db, ADMIN, settings);
    svc = await startService(env);
  });
  after(async () => {
    await svc?.stop("SIGTERM");
    await rx.close();
    await db.drop();
  });

  const api = keyedApi(() => svc, ADMIN);
  const killAndRestart = async () => {
    await svc!.stop("SIGKILL");
    kills++;
    svc = await startService(env);
  };
  const runIn = (exec: number, statuses: string[]) =>
    eventually(
      `run ${exec} to be ${statuses.join("/")}`,
      async () => {
        const run = (await api("GET", `/api/v1/workflows/${exec}`)).body as Json;
        return statuses.includes(run.status) ? run : undefined;
      },
      20_000,
    );
  const rule = async (name: string, steps: Json[]): Promise<number> => {
    const edges = steps.slice(1).map((s, i) => ({ source_label: steps[i].label, source_port: "main", target_label: s.label }));
    const res = await api("POST", "/api/v1/rules/import", { schema_version: 1, rule: { name, trigger_type: "manual" }, steps, edges });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.rule_id;
  };
  const execute = async (ruleId: number): Promise<number> => (await api("POST", `/api/v1/rules/${ruleId}/execute`)).body.execution_id;
  const wait = (label: string, minutes: number): Json => ({ label, step_type: "wait", schema_version: 2, config: { duration_minutes: minutes } });
  const notify = (label: string, level: string, text: string): Json => ({
    label,
    step_type: "notification",
    schema_version: 1,
    config: { alert_level: level, message_template: text },
  });
  const sent = (text: string): ReceivedWebhook[] => rx.received.filter((r) => (r.body as Json | undefined)?.message === text);

  it("1. a run parked at a wait: resumes on time after the kill and sends once", async () => {
    const id = await rule("Wait then tell", [wait("pause", 0.04), notify("tell", "info", "wait done")]);
    const exec = await execute(id);
    await runIn(exec, ["waiting"]);
    await killAndRestart();
    const run = await runIn(exec, ["completed", "failed"]);
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.equal(sent("wait done").length, 1);
  });

  it("2. a run just past its wait, killed while its webhook is half sent: the step is not run again, the alert not raised twice", async () => {
    const id = await rule("Past the wait", [wait("pause", 0.01), notify("warn", "warning", "past the wait")]);
    rx.delayBy(600_000); // the receiver holds the answer: the send is in flight at the kill
    const exec = await execute(id);
    await eventually("the webhook to arrive", async () => (sent("past the wait").length ? true : undefined), 20_000);
    await killAndRestart();
    rx.delayBy(0);
    const run = await runIn(exec, ["completed", "failed"]);
    assert.equal(run.status, "failed");
    assert.match(run.error, /interrupted/, "the run shows why it stopped");
    // sleep-ok: a service process of its own on the real clock, killed with SIGKILL: no hook to wait
    // on; a wrong second resume would be due at once on restart, well within this.
    await new Promise((r) => setTimeout(r, 1500));
    // The warning level escalates every 3 s here: its repetitions (keys `alert:…`) are not the step.
    const stepSends = sent("past the wait").filter((r) => !String(r.headers["idempotency-key"]).startsWith("alert:"));
    assert.equal(stepSends.length, 1, "the step after the wait ran once");
    const alerts = ((await api("GET", "/api/v1/alerts")).body as Json[]).filter((a) => a.execution_id === exec);
    assert.equal(alerts.length, 1, "one alert for one step");
  });

  it("3. a run waiting for the senior's answer: answered after the kill, it goes on once", async () => {
    const id = await rule("Ask then tell", [
      { label: "ask", step_type: "interactive_prompt", schema_version: 1, config: { popup_message_template: "Are you alright?", countdown_seconds: 300 } },
      notify("tell", "info", "answered"),
    ]);
    const exec = await execute(id);
    const parked = await runIn(exec, ["waiting"]);
    await killAndRestart();
    const stepId = parked.step_timings.find((s: Json) => s.label === "ask").step_id;
    const answer = { execution_id: exec, step_id: stepId, channel: "pwa_popup_text", action: "dismiss", raw_response: { button: "I'm okay" } };
    const first = await eventually(
      "the answer to be taken",
      async () => {
        const res = await api("POST", "/api/v1/interactive-responses", answer);
        return res.status === 200 ? res : undefined;
      },
      20_000,
    );
    assert.equal(first.body.success, true, JSON.stringify(first.body));
    const run = await runIn(exec, ["completed", "failed"]);
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.equal(sent("answered").length, 1);
  });

  it("4. an alert's escalation, killed while a repetition is half sent: that repetition is sent again with its key, once", async () => {
    const repeats = () => sent("past the wait").filter((r) => String(r.headers["idempotency-key"]).includes(":escalation:"));
    const before = repeats().length;
    rx.delayBy(600_000);
    await eventually("an escalation repetition to arrive", async () => (repeats().length > before ? true : undefined), 30_000);
    const inFlight = String(repeats()[repeats().length - 1].headers["idempotency-key"]);
    await killAndRestart();
    rx.delayBy(0);
    // The one cut short is sent again at the start, with the same key (a receiver may drop the
    // repeat; a missed emergency is worse than a repeated one); the next comes on schedule, with its own.
    await eventually(
      "the next repetition",
      async () => (repeats().some((r) => r.headers["idempotency-key"] !== inFlight && !sentBefore(r)) ? true : undefined),
      30_000,
    );
    const times = new Map<string, number>();
    for (const r of repeats()) times.set(String(r.headers["idempotency-key"]), (times.get(String(r.headers["idempotency-key"])) ?? 0) + 1);
    assert.equal(times.get(inFlight), 2);
    // The next repetition may have been claimed while the one before hung: it is sent again too, once.
    for (const [key, n] of times) assert.ok(n <= 2, `${key} sent ${n} times`);
    function sentBefore(r: ReceivedWebhook): boolean {
      return rx.received.indexOf(r) < rx.received.findIndex((x) => x.headers["idempotency-key"] === inFlight);
    }
  });

  it("5. many runs parked at once: every one resumes once after the kill", async () => {
    const id = await rule("Many waits", [wait("pause", 0.04), notify("tell", "info", "many done")]);
    const execs: number[] = [];
    for (let n = 0; n < 8; n++) execs.push(await execute(id));
    for (const e of execs) await runIn(e, ["waiting"]);
    await killAndRestart();
    for (const e of execs) assert.equal((await runIn(e, ["completed", "failed"])).status, "completed");
    const keys = new Set(sent("many done").map((r) => String(r.headers["idempotency-key"]).split(":")[0]));
    assert.equal(sent("many done").length, execs.length);
    assert.deepEqual(
      [...keys].map(Number).sort((a, b) => a - b),
      [...execs].sort((a, b) => a - b),
      "one send per run",
    );
  });

  it("6. a camera batch still gathering frames at the kill: after the restart it fires its rule once, with the frames it had", async () => {
    const res = await api("POST", "/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Crash camera", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "crash_cam" } },
      steps: [notify("tell", "info", "batch from {{sensor_id}}")],
      edges: [],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const ruleId = res.body.rule_id as number;
    const { testJpeg, cameraPayload } = await import("../support/jpeg");
    for (let i = 0; i < 2; i++) {
      const up = await fetch(`${svc!.baseUrl}/api/v1/device/camera?api_key=${CAMERA}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(cameraPayload(await testJpeg(64, 48, 900 + i))),
      });
      assert.equal(up.status, 200, await up.text());
    }
    await killAndRestart();
    const runs = await eventually(
      "the batch's run",
      async () => {
        const list = (await api("GET", `/api/v1/workflows?rule_id=${ruleId}`)).body as Json[];
        return list.length > 0 && list.every((r) => r.status === "completed") ? list : undefined;
      },
      40_000,
    );
    assert.equal(runs.length, 1);
    assert.equal(runs[0].pipeline_data.media_paths.length, 2, "the frames stored before the kill");
    // sleep-ok: a service process of its own on the real clock: no hook to wait on from here.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(((await api("GET", `/api/v1/workflows?rule_id=${ruleId}`)).body as Json[]).length, 1, "fired once");
    assert.equal(sent("batch from crash_cam").length, 1);
  });

  it("6b. a camera batch whose window ends while the service is down: the restart fires its rule once, with the frames it had", async () => {
    const res = await api("POST", "/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Crash camera, late", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "crash_cam" } },
      steps: [notify("tell", "info", "late batch from {{sensor_id}}")],
      edges: [],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const ruleId = res.body.rule_id as number;
    const { testJpeg, cameraPayload } = await import("../support/jpeg");
    for (let i = 0; i < 2; i++) {
      const up = await fetch(`${svc!.baseUrl}/api/v1/device/camera?api_key=${CAMERA}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(cameraPayload(await testJpeg(64, 48, 950 + i))),
      });
      assert.equal(up.status, 200, await up.text());
    }
    await svc!.stop("SIGKILL");
    kills++;
    await new Promise((r) => setTimeout(r, 4500)); // sleep-ok: the batch's 4 s window ends while nothing runs (what is tested)
    svc = await startService(env);
    const runs = await eventually(
      "the late batch's run",
      async () => {
        const list = (await api("GET", `/api/v1/workflows?rule_id=${ruleId}`)).body as Json[];
        return list.length > 0 && list.every((r) => r.status === "completed") ? list : undefined;
      },
      40_000,
    );
    assert.equal(runs.length, 1);
    assert.equal(runs[0].pipeline_data.media_paths.length, 2, "the frames stored before the kill");
    assert.equal(sent("late batch from crash_cam").length, 1);
  });

  it("after all the kills: no run lost, no idempotency key sent twice", async () => {
    assert.ok(kills >= 6, `${kills} kills`);
    const runs = (await api("GET", "/api/v1/workflows")).body as Json[];
    for (const r of runs) assert.ok(["completed", "failed", "waiting"].includes(r.status), `run ${r.id} is ${r.status}`);
    for (const r of runs.filter((x) => x.status === "failed")) assert.match(String(r.error), /interrupted/, `run ${r.id} failed without a reason`);
    const keys = rx.received.map((r) => String(r.headers["idempotency-key"]));
    // Only escalation repetitions went out twice: one in flight at a kill (test 4's, and any the
    // open alert had in flight at a later kill) is sent again once after the restart.
    const repeated = keys.filter((k, i) => keys.indexOf(k) !== i);
    assert.deepEqual(
      repeated.filter((k) => !/^alert:\d+:escalation:\d+$/.test(k)),
      [],
      "a step's send was repeated",
    );
    for (const k of new Set(repeated)) assert.equal(keys.filter((x) => x === k).length, 2, `${k} sent more than twice`);
  });
});
