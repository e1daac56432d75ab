/**
 * Issue 51, item 9: a kill -9 while a notification step's webhook is in flight (the receiver
 * has the request and holds its answer). After the restart the run says why it failed and
 * where ("interrupted by a restart during 'tell'"), and the step's record says interrupted,
 * not skipped, with what it had done; the webhook is not sent again. On both stores.
 */
import assert from "node:assert/strict";
import { startWebhookReceiver, type WebhookReceiver } from "../../../../../fakes/webhook-receiver";
import { keyedApi, operatorEnv, startService, type ServiceProcess } from "../../../../../support/service-process";
import { freshDatabase, type TestDatabase } from "../../../../../support/test-db";

const ADMIN = "interrupted-admin-key-01";
type Json = Record<string, any>;

describe("a step cut short by a kill, after the restart", function () {
  this.timeout(90_000);
  let db: TestDatabase;
  let rx: WebhookReceiver;
  let svc: ServiceProcess | undefined;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    db = await freshDatabase();
    rx = await startWebhookReceiver();
    env = operatorEnv(db, ADMIN, {
      notifications: {
        webhook: { url: rx.url, timeout_seconds: 60 },
        levels: { info: { channels: ["webhook"] }, warning: { channels: ["webhook"], escalation_minutes: 60, repeat_count: 1 } },
      },
    });
    svc = await startService(env, 45_000);
  });
  after(async () => {
    await svc?.stop("SIGTERM");
    await rx.close();
    await db.drop();
  });

  const api = keyedApi(() => svc, ADMIN);
  const sent = (text: string) => rx.received.filter((r) => (r.body as Json | undefined)?.message === text);

  /** A manual rule whose one step sends `text` at `level`; run it, and kill the service once its webhook has arrived. */
  async function killDuringWebhook(name: string, level: string, text: string): Promise<number> {
    const rule = await api("POST", "/api/v1/rules/import", {
      schema_version: 1,
      rule: { name, trigger_type: "manual" },
      steps: [{ label: "tell", step_type: "notification", schema_version: 1, config: { alert_level: level, message_template: text } }],
      edges: [],
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    rx.delayBy(600_000); // the receiver holds its answer: the send is in flight at the kill
    const exec = (await api("POST", `/api/v1/rules/${rule.body.rule_id}/execute`)).body.execution_id as number;
    await rx.waitFor(rx.received.length + 1, 20_000);
    assert.equal(sent(text).length, 1, "the webhook reached the receiver");
    await svc!.stop("SIGKILL");
    rx.delayBy(0);
    svc = await startService(env, 45_000);
    return exec;
  }

  /** The run as REST gives it after the restart (recovery runs before the service listens). */
  async function afterRestart(exec: number): Promise<{ run: Json; detail: Json; step: Json; line: Json }> {
    const run = (await api("GET", `/api/v1/workflows/${exec}`)).body as Json;
    const detail = (await api("GET", `/api/v1/workflows/${exec}/detail`)).body as Json;
    const step = run.step_timings.find((s: Json) => s.label === "tell");
    const line = detail.timeline.find((s: Json) => s.label === "tell");
    return { run, detail, step, line };
  }

  it("a warning: the run says it was interrupted during 'tell'; the step shows the alert it raised and that its send's outcome is not known", async () => {
    const exec = await killDuringWebhook("Warn the family", "warning", "warned before the kill");
    const { run, detail, step, line } = await afterRestart(exec);
    assert.equal(run.status, "failed");
    assert.equal(run.error, "interrupted by a restart during 'tell'");
    assert.ok(detail.errors.includes("interrupted by a restart during 'tell'"), `the run's errors give the reason: ${JSON.stringify(detail.errors)}`);
    assert.equal(step?.status, "interrupted", JSON.stringify(run.step_timings));
    assert.equal(line.status, "interrupted", "the timeline says interrupted, not skipped");
    assert.equal(line.elapsed_seconds, null);
    const alerts = ((await api("GET", "/api/v1/alerts")).body as Json[]).filter((a) => a.execution_id === exec);
    assert.equal(alerts.length, 1, "the alert raised before the kill, once");
    assert.ok(
      line.done.some((d: string) => d.startsWith(`raised alert #${alerts[0].id} (warning)`)),
      JSON.stringify(line.done),
    );
    assert.ok(
      line.done.some((d: string) => /sending through webhook .*whether it arrived is not known/.test(d)),
      JSON.stringify(line.done),
    );
    assert.deepEqual(step.done, line.done);
    const node = detail.path.nodes.find((n: Json) => n.node_id === line.node_id);
    assert.equal(node.state, "interrupted");
    assert.equal(detail.path.focus, line.node_id, "the canvas shows the node the restart cut short");
    assert.equal(sent("warned before the kill").length, 1, "the step was not run again");
  });

  it("an info note (no alert): the step says it was sending through the webhook, and the run names the step", async () => {
    const exec = await killDuringWebhook("Tell the family", "info", "told before the kill");
    const { run, step, line } = await afterRestart(exec);
    assert.equal(run.status, "failed");
    assert.equal(run.error, "interrupted by a restart during 'tell'");
    assert.equal(step.status, "interrupted");
    assert.equal(line.status, "interrupted");
    assert.ok(
      line.done.some((d: string) => /sending through webhook .*not known/.test(d)),
      JSON.stringify(line.done),
    );
    assert.ok(!line.done.some((d: string) => /alert/.test(d)), "an info note raises no alert");
    assert.equal(sent("told before the kill").length, 1, "the step was not run again");
  });
});
