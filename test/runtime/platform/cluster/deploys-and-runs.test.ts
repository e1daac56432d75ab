/**
 * Any instance serves any client (issue 28 §2), with Node-RED and the engine on each: one
 * instance here, the other a child process (`npm start`; Node-RED is one per process), both
 * on one PostgreSQL database and the machine's NATS. A rule written through one instance runs
 * on the other at once, an update made through one (REST or the editor's deploy) changes what
 * the other runs, and the live feed and web app clients of each instance see the runs and
 * popups of the other's engine.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { connect } from "@nats-io/transport-node";
import { createApp, type CareflowApp } from "../../../../runtime/app/app";
import { storedRevision } from "../../../../runtime/app/cluster/shared-deploys";
import { readFlows, writeFlows } from "../../../../runtime/platform/nodered/flow-store";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { eventually } from "../../../support/eventually";
import { NATS_URL, requireNats } from "../../../support/nats";
import { requirePgPass, sharedPg, type SharedPg } from "../../../support/pg-cluster";
import { startService, type ServiceProcess } from "../../../support/service-process";
import { tcpProxy, type TcpProxy } from "../../../support/tcp-proxy";
import { KEYS, testAuthSettings } from "../../../support/test-app";

const log = createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent");

type Frame = Record<string, any>;

function listen(base: string, pathname: string, key: string): Promise<{ frames: Frame[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace("http", "ws")}${pathname}`, [key]);
    const frames: Frame[] = [];
    ws.on("message", (data) => frames.push(JSON.parse(String(data))));
    ws.once("open", () => resolve({ frames, close: () => ws.close() }));
    ws.once("error", reject);
  });
}

describe("cluster: deploys and runs seen by every instance", function () {
  this.timeout(120_000);
  let pg: SharedPg;
  let alpha: CareflowApp | undefined;
  let beta: ServiceProcess | undefined;
  let a: string;
  let b: string;
  const sockets: Array<{ close(): void }> = [];
  // Beta reaches the broker through a relay the test can cut.
  let relay: TcpProxy | undefined;

  const cluster = (id: string, natsUrl = NATS_URL) => ({ enabled: true, instance_id: id, lease_seconds: 1, nats_url: natsUrl });
  const call = async (base: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: Frame }> => {
    const res = await fetch(base + p, {
      method,
      headers: { "x-api-key": KEYS.admin, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Frame) : {} };
  };
  const linked = (base: string) =>
    eventually(`${base} linked to NATS`, async () => (await call(base, "GET", "/health")).body.cluster?.events?.state === "connected", 20_000);
  const finished = (base: string, exec: number) =>
    eventually(
      `run ${exec}`,
      async () => {
        const run = (await call(base, "GET", `/api/v1/workflows/${exec}`)).body;
        return ["completed", "failed"].includes(run.status) && run;
      },
      20_000,
    );
  /** A manual rule of one condition step, imported through `base`; its id. */
  const checkRuleOn = async (base: string, name: string): Promise<number> => {
    const imported = await call(base, "POST", "/api/v1/rules/import", {
      schema_version: 1,
      rule: { name, trigger_type: "manual" },
      steps: [{ label: "check", step_type: "condition", schema_version: 1, config: { expression: "true" } }],
    });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    return imported.body.rule_id as number;
  };
  const popupRule = (template: string) => ({
    alert_level: "emergency",
    channels: ["pwa_popup_text"],
    pwa_popup_text_template: template,
  });

  before(async function () {
    requirePgPass(this);
    await requireNats(this);
    pg = await sharedPg(this);
    // Alpha first: it makes the schema the child finds.
    alpha = await createApp({
      config: {
        port: 0,
        dataDir: path.join(pg.dataDir, "alpha"),
        databaseUrl: pg.url,
        settingsFile: undefined,
        settings: buildSettings({ auth: testAuthSettings(), cluster: cluster("alpha") }),
      },
      log,
      nodeRed: true,
    });
    a = `http://127.0.0.1:${await alpha.listen(0, "127.0.0.1")}`;
    const broker = new URL(NATS_URL.replace(/^nats:/, "http:"));
    relay = await tcpProxy({ host: broker.hostname, port: Number(broker.port || 4222) });
    const settingsFile = path.join(pg.dataDir, "beta.yaml");
    fs.writeFileSync(settingsFile, JSON.stringify({ auth: testAuthSettings(), cluster: cluster("beta", relay.url), app: { log_level: "info" } }));
    beta = await startService(
      { DATABASE_URL: pg.url, CAREFLOW_DATA_DIR: path.join(pg.dataDir, "beta"), CAREFLOW_SETTINGS: settingsFile, CAREFLOW_DEMO: "0" },
      90_000,
    );
    b = beta.baseUrl;
    await linked(a);
    await linked(b);
  });
  after(async () => {
    for (const s of sockets) s.close();
    await beta?.stop();
    await alpha?.close();
    await relay?.close();
    await pg?.drop();
  });

  let ruleId: number;
  let stepId: number;

  it("sends no run events between instances while no instance has a live feed client", async () => {
    const prefix = (await call(a, "GET", "/health")).body.cluster.events.subject_prefix as string;
    const nc = await connect({ servers: NATS_URL });
    const sent: string[] = [];
    const sub = nc.subscribe(`${prefix}.runs`);
    void (async () => {
      for await (const m of sub) sent.push(m.string());
    })();
    try {
      const ruleOfA = await checkRuleOn(a, "Quiet check");
      for (const base of [a, b]) {
        const exec = (await call(base, "POST", `/api/v1/rules/${ruleOfA}/execute`)).body.execution_id as number;
        const run = await finished(base, exec);
        assert.equal(run.status, "completed", `on ${base === a ? "alpha" : "beta"}: ${JSON.stringify(run)}`);
      }
      await nc.flush();
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(sent, [], "nobody watches, so no instance built or sent its runs' events");
    } finally {
      await nc.close();
    }
  });

  it("a run on one instance is seen on the other's live feed and web app, once, in order", async () => {
    const feedOnB = await listen(b, "/ws/pipeline", KEYS.caregiver);
    const screenOnB = await listen(b, "/ws", KEYS.webapp);
    const screenOnA = await listen(a, "/ws", KEYS.webapp);
    sockets.push(feedOnB, screenOnB, screenOnA);
    const imported = await call(a, "POST", "/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Smoke", trigger_type: "manual" },
      steps: [{ label: "Smoke alarm", step_type: "notification", schema_version: 1, config: popupRule("Smoke in the kitchen") }],
    });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    ruleId = imported.body.rule_id as number;
    const exec = (await call(a, "POST", `/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
    assert.equal((await finished(a, exec)).status, "completed");
    await eventually("the run's end on beta's feed", () => feedOnB.frames.some((f) => f.execution_id === exec && f.event_type === "pipeline_completed"));
    await eventually("the popup on beta's screen", () => screenOnB.frames.some((f) => f.type === "emergency"));
    await new Promise((r) => setTimeout(r, 300));
    const mine = feedOnB.frames.filter((f) => f.execution_id === exec);
    assert.deepEqual(
      mine.map((f) => f.event_type),
      ["pipeline_started", "step_started", "step_completed", "pipeline_completed"],
    );
    assert.equal(mine[3].rule_name, "Smoke");
    const seq = mine.map((f) => f.sequence as number);
    assert.deepEqual(
      seq,
      [...seq].sort((x, y) => x - y),
      "numbered in the order beta hands them out",
    );
    for (const screen of [screenOnA, screenOnB])
      assert.deepEqual(
        screen.frames.filter((f) => f.type === "emergency").map(({ alert_id: _id, ...f }) => f),
        [{ type: "emergency", message: "Smoke in the kitchen", room: null }],
      );
  });

  it("the rule written through one instance runs on the other, and an update through one changes what the other runs", async () => {
    const screenOnB = await listen(b, "/ws", KEYS.webapp);
    const feedOnA = await listen(a, "/ws/pipeline", KEYS.caregiver);
    sockets.push(screenOnB, feedOnA);
    // The screen that connects is first shown the emergency still open from the test before.
    await eventually("the open alert shown on connect", () => screenOnB.frames.some((f) => f.type === "emergency"));
    const first = (await call(b, "POST", `/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
    assert.equal((await finished(b, first)).status, "completed");
    await eventually("beta's run on alpha's feed", () => feedOnA.frames.some((f) => f.execution_id === first && f.event_type === "pipeline_completed"));

    const steps = await call(a, "GET", `/api/v1/rules/${ruleId}/steps`);
    stepId = (steps.body as unknown as Frame[])[0].id as number;
    const updated = await call(a, "PUT", `/api/v1/rules/${ruleId}/steps/${stepId}`, { config_json: popupRule("Smoke in the hall") });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    // What an operator checks: every instance runs the flows of the last deploy.
    const rev = (await call(a, "GET", "/health")).body.cluster.flows_rev as string;
    // Computed as Node-RED does: an instance running the stored flows never reloads them for nothing.
    assert.equal(rev, await storedRevision(alpha!.ctx.db));
    await eventually("beta to run alpha's deploy", async () => (await call(b, "GET", "/health")).body.cluster.flows_rev === rev);
    const second = (await call(b, "POST", `/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
    assert.equal((await finished(b, second)).status, "completed");
    await eventually("the updated popup from beta's run", () => screenOnB.frames.some((f) => f.type === "emergency" && f.message === "Smoke in the hall"));
    assert.deepEqual(
      screenOnB.frames.filter((f) => f.type === "emergency").map((f) => f.message),
      ["Smoke in the kitchen", "Smoke in the kitchen", "Smoke in the hall"],
    );
  });

  it("a deploy through one instance's editor is what the other runs", async () => {
    const screenOnB = await listen(b, "/ws", KEYS.webapp);
    sockets.push(screenOnB);
    const editor = (base: string, init: RequestInit = {}) =>
      fetch(`${base}/editor/flows`, {
        ...init,
        headers: { authorization: `Bearer ${KEYS.admin}`, "content-type": "application/json", "Node-RED-API-Version": "v2", ...(init.headers ?? {}) },
      });
    const current = (await (await editor(a)).json()) as { flows: Frame[]; rev: string };
    const step = current.flows.find((n) => n.config?.pwa_popup_text_template === "Smoke in the hall");
    assert.ok(step, "the rule's notification node in the editor's flows");
    step.config = { ...step.config, pwa_popup_text_template: "Smoke on the stairs" };
    const deployed = await editor(a, {
      method: "POST",
      headers: { "Node-RED-Deployment-Type": "full" },
      body: JSON.stringify({ flows: current.flows, rev: current.rev }),
    });
    const answer = await deployed.text();
    assert.equal(deployed.status, 200, answer);
    const rev = (JSON.parse(answer) as { rev: string }).rev;
    await eventually("beta to run the editor's deploy", async () => (await call(b, "GET", "/health")).body.cluster.flows_rev === rev);
    // Beta's editor shows the new flows too.
    assert.equal(((await (await editor(b)).json()) as { rev: string }).rev, rev);
    const exec = (await call(b, "POST", `/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
    assert.equal((await finished(b, exec)).status, "completed");
    await eventually("the deployed popup from beta's run", () => screenOnB.frames.some((f) => f.type === "emergency" && f.message === "Smoke on the stairs"));
  });

  it("an instance cut off from the broker runs on, and runs the deploys it missed once it is back", async () => {
    await relay!.cut();
    await eventually("beta to notice", async () => (await call(b, "GET", "/health")).body.cluster.events.state !== "connected");
    const before = (await call(b, "GET", "/health")).body;
    assert.equal(before.status, "ok");
    const steps = (await call(a, "GET", `/api/v1/rules/${ruleId}/steps`)).body as unknown as Frame[];
    const updated = await call(a, "PUT", `/api/v1/rules/${ruleId}/steps/${steps[0].id}`, { config_json: popupRule("Smoke in the cellar") });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const rev = (await call(a, "GET", "/health")).body.cluster.flows_rev as string;
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await call(b, "GET", "/health")).body.cluster.flows_rev, before.cluster.flows_rev, "no notice reached beta");
    await relay!.restore();
    await eventually("beta to catch up on reconnecting", async () => (await call(b, "GET", "/health")).body.cluster.flows_rev === rev, 20_000);
    assert.equal((await call(b, "GET", "/health")).body.cluster.events.state, "connected");
  });

  it("a REST read on an instance that missed a deploy's notice reads and runs the stored flows", async () => {
    // Stored with no notice at all, as by an instance that died right after its commit.
    const flows = await readFlows(alpha!.ctx.db);
    const tab = flows.find((n) => n.type === "tab" && n.label === "Smoke");
    assert.ok(tab, "the Smoke rule's tab");
    tab.label = "Smoke (renamed quietly)";
    await writeFlows(alpha!.ctx.db, flows);
    for (const base of [b, a]) assert.equal((await call(base, "GET", `/api/v1/rules/${ruleId}`)).body.name, "Smoke (renamed quietly)");
    const rev = await storedRevision(alpha!.ctx.db);
    assert.equal((await call(b, "GET", "/health")).body.cluster.flows_rev, rev, "beta runs what it read");
  });

  it("a rule made through one instance a moment ago runs when fired through another that missed the notice", async () => {
    await relay!.cut();
    await eventually("beta to notice", async () => (await call(b, "GET", "/health")).body.cluster.events.state !== "connected");
    try {
      const ruleOfA = await checkRuleOn(a, "Late notice");
      const fired = await call(b, "POST", `/api/v1/rules/${ruleOfA}/execute`);
      assert.equal(fired.status, 201, JSON.stringify(fired.body));
      assert.equal((await finished(b, fired.body.execution_id as number)).status, "completed");
    } finally {
      await relay!.restore();
    }
    await eventually("beta back on the broker", async () => (await call(b, "GET", "/health")).body.cluster.events.state === "connected", 20_000);
  });
});
