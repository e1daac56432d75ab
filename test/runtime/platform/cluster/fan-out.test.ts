/**
 * Any instance serves any client (issue 28 §2), between instances in this process on the
 * machine's PostgreSQL and NATS: a `/ws` client on one instance sees what another broadcasts
 * (once, keeping each frame's role filter), counts include the other instances' clients, the
 * bus topics that cross reach the subscribers that ask for them, and an instance whose broker
 * goes away serves on, says so in /health and catches up once it is back. Each test database
 * is a cluster of its own, with its own NATS subjects, so parallel passes never cross.
 */
import assert from "node:assert/strict";
import path from "node:path";
import WebSocket from "ws";
import { createApp, type CareflowApp } from "../../../../runtime/app/app";
import { createAlert } from "../../../../runtime/household/alerts/alerts.service";
import { LIVE_FRAME_TWIN } from "../../../../runtime/household/cts/live-frames";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { eventually } from "../../../support/eventually";
import { NATS_URL, requireNats } from "../../../support/nats";
import { requirePgPass, sharedPg, type SharedPg } from "../../../support/pg-cluster";
import { tcpProxy, type TcpProxy } from "../../../support/tcp-proxy";
import { KEYS, testAuthSettings } from "../../../support/test-app";
import { hubState } from "../../../../runtime/household/hub/hub-state";
import { startFakeHub, type FakeHub } from "../../../fakes/hub-server";

const log = createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent");

type Frame = Record<string, any>;

class WsClient {
  readonly frames: Frame[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, binary) => this.frames.push(binary ? { binary: Buffer.from(data as Buffer).toString() } : JSON.parse(String(data))));
  }
  static connect(base: string, key: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${base.replace("http", "ws")}/ws`, [key]);
      ws.once("open", () => resolve(new WsClient(ws)));
      ws.once("error", reject);
    });
  }
  of(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type);
  }
  close(): void {
    this.ws.close();
  }
}

interface Instance {
  app: CareflowApp;
  base: string;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("cluster: events fanned out to every instance's clients", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  const apps: CareflowApp[] = [];
  const clients: WsClient[] = [];
  let proxy: TcpProxy | undefined;

  const start = async (id: string, natsUrl = NATS_URL): Promise<Instance> => {
    const settings = buildSettings({ auth: testAuthSettings(), cluster: { enabled: true, instance_id: id, lease_seconds: 1, nats_url: natsUrl } });
    const app = await createApp({
      config: { port: 0, dataDir: path.join(pg.dataDir, id), databaseUrl: pg.url, settingsFile: undefined, settings },
      log,
      nodeRed: false,
    });
    apps.push(app);
    return { app, base: `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}` };
  };
  const health = async (i: Instance) => (await (await fetch(`${i.base}/health`)).json()) as Frame;
  const linked = (i: Instance) =>
    eventually(`${i.app.ctx.cluster?.instanceId} linked to NATS`, async () => (await health(i)).cluster?.events?.state === "connected");
  const client = async (i: Instance, key: string) => {
    const c = await WsClient.connect(i.base, key);
    clients.push(c);
    await eventually("the welcome frame", () => c.of("welcome").length === 1);
    return c;
  };

  let a: Instance;
  let b: Instance;

  before(async function () {
    requirePgPass(this);
    await requireNats(this);
    pg = await sharedPg(this);
    a = await start("alpha");
    b = await start("beta");
    await linked(a);
    await linked(b);
  });
  after(async () => {
    for (const c of clients) c.close();
    for (const app of apps) await app.close().catch(() => undefined);
    await proxy?.close();
    await pg?.drop();
  });

  it("says in /health that the link to the other instances is up, with this cluster's own subjects", async () => {
    const [ha, hb] = [await health(a), await health(b)];
    assert.equal(ha.status, "ok");
    assert.equal(ha.cluster.events.nats_url, NATS_URL);
    assert.match(ha.cluster.events.subject_prefix, /^careflow\.[0-9a-f]{12}$/);
    assert.equal(ha.cluster.events.subject_prefix, hb.cluster.events.subject_prefix, "one database, one cluster");
  });

  it("an alert acknowledged on one instance updates the screens connected to the other, once each", async () => {
    const onA = await client(a, KEYS.caregiver);
    const onB = await client(b, KEYS.webapp);
    const alert = await createAlert(a.app.ctx, { alert_type: "Fall in hall", level: "emergency", description: "Rose may have fallen" });
    await eventually("the created alert on beta's screen", () => onB.of("alert_update").length === 1);
    const ack = await fetch(`${a.base}/api/v1/alerts/${alert.id}/action`, {
      method: "POST",
      headers: { "x-api-key": KEYS.caregiver, "content-type": "application/json" },
      body: JSON.stringify({ action: "dismiss" }),
    });
    assert.equal(ack.status, 200, await ack.text());
    await eventually("the acknowledgement on beta's screen", () => onB.of("alert_update").length === 2);
    await pause(200);
    for (const c of [onA, onB]) {
      assert.deepEqual(
        c.of("alert_update").map((f) => [f.event, f.alert.id]),
        [
          ["created", alert.id],
          ["acknowledged", alert.id],
        ],
      );
    }
    onA.close();
    onB.close();
  });

  it("counts the other instances' screens, and keeps a frame's role filter on every instance", async () => {
    const tablet = await client(b, KEYS.webapp);
    const caregiver = await client(b, KEYS.caregiver);
    await eventually("alpha to know beta's two screens", () => a.app.ctx.webapp.size === 2);
    assert.equal(a.app.ctx.webapp.localSize, 0);
    assert.equal(a.app.ctx.webapp.broadcast({ type: "popup_test", n: 1 }), 2, "a broadcast reaches the screens of every instance");
    a.app.ctx.webapp.broadcastTo(LIVE_FRAME_TWIN, { type: "cts_live_frame", camera_id: "hall" });
    await eventually("both frames on the caregiver's screen", () => caregiver.of("popup_test").length === 1 && caregiver.of("cts_live_frame").length === 1);
    await pause(200);
    assert.equal(tablet.of("popup_test").length, 1);
    assert.equal(tablet.of("cts_live_frame").length, 0, "the senior's tablet never gets the tracking picture, whichever instance sends it");
    a.app.ctx.webapp.broadcastBinary(Buffer.from("pcm"));
    await eventually("audio on beta's screens", () => tablet.frames.some((f) => f.binary === "pcm"));
    tablet.close();
    caregiver.close();
    await eventually("alpha to learn they left", () => a.app.ctx.webapp.size === 0);
  });

  it("hands the bus topics that cross to the subscribers that ask for other instances' events, and only those", async () => {
    const everywhere: string[] = [];
    const local: string[] = [];
    const off = [
      a.app.ctx.bus.subscribe("person.added", (p) => everywhere.push(p.person_id), { otherInstances: true }),
      a.app.ctx.bus.subscribe("person.added", (p) => local.push(p.person_id)),
      a.app.ctx.bus.subscribe("sensor.event", (e) => local.push(e.sensor_id), { otherInstances: true }),
    ];
    b.app.ctx.bus.publish("person.added", { person_id: "rose" });
    b.app.ctx.bus.publish("sensor.event", { sensor_id: "hall_pir", room_name: "hall", kind: "presence", occupied: true, at: Date.now() });
    a.app.ctx.bus.publish("person.added", { person_id: "anna" });
    await eventually("rose, added on beta, known on alpha", () => everywhere.includes("rose"));
    await pause(200);
    for (const o of off) o();
    assert.deepEqual(everywhere.sort(), ["anna", "rose"]);
    assert.deepEqual(local, ["anna"], "a sensor event fires its rules where it arrived; plain subscribers hear their own instance");
  });

  it("serves on without the broker, says so, and is reached again once the broker is back", async () => {
    proxy = await tcpProxy({
      host: new URL(NATS_URL.replace(/^nats:/, "http:")).hostname,
      port: Number(new URL(NATS_URL.replace(/^nats:/, "http:")).port || 4222),
    });
    const c = await start("gamma", proxy.url);
    await linked(c);
    const onC = await client(c, KEYS.caregiver);
    await proxy.cut();
    await eventually("gamma to notice", async () => (await health(c)).cluster.events.state !== "connected");
    const h = await health(c);
    assert.equal(h.status, "ok", "the instance still serves its own clients");
    assert.equal(h.cluster.events.state, "reconnecting");
    c.app.ctx.webapp.broadcast({ type: "popup_test", n: 2 });
    await eventually("gamma's own screen still served", () => onC.of("popup_test").length === 1);
    a.app.ctx.webapp.broadcast({ type: "popup_test", n: 3 });
    await proxy.restore();
    await linked(c);
    a.app.ctx.webapp.broadcast({ type: "popup_test", n: 4 });
    await eventually("alpha's popup on gamma's screen again", () => onC.of("popup_test").some((f) => f.n === 4));
    assert.deepEqual(
      onC.of("popup_test").map((f) => f.n),
      [2, 4],
      "what alpha sent while gamma was cut off is not replayed (live events only)",
    );
  });
});

describe("cluster: the hub's states known on every instance", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  let hub: FakeHub;
  const apps: CareflowApp[] = [];
  const start = async (id: string): Promise<CareflowApp> => {
    const settings = buildSettings({
      auth: testAuthSettings(),
      cluster: { enabled: true, instance_id: id, lease_seconds: 1, nats_url: NATS_URL },
      hub: { url: hub.url, token: hub.token },
    });
    const app = await createApp({
      config: { port: 0, dataDir: path.join(pg.dataDir, id), databaseUrl: pg.url, settingsFile: undefined, settings },
      log,
      nodeRed: false,
    });
    apps.push(app);
    return app;
  };
  const bedOf = (app: CareflowApp) => hubState(app.ctx).state("binary_sensor.rose_bed");

  before(async function () {
    requirePgPass(this);
    await requireNats(this);
    pg = await sharedPg(this);
    hub = await startFakeHub();
  });
  after(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await hub?.stop();
    await pg?.drop();
  });

  it("the presence providers of an instance without the hub connection read the states its holder sees, and after a failover", async () => {
    hub.setState("binary_sensor.rose_bed", "on");
    const alpha = await start("alpha");
    await eventually("alpha's hub connection", () => alpha.ctx.hub?.client?.ready === true);
    const beta = await start("beta");
    assert.equal(beta.ctx.hub?.client?.connected, false, "one hub connection for the cluster");
    // A state set before beta came: from the holder's answer to beta's request.
    await eventually("beta to know the bed is occupied", async () => (await bedOf(beta))?.state === "on");
    hub.setState("binary_sensor.rose_bed", "off");
    await eventually("beta to see the bed emptied", async () => (await bedOf(beta))?.state === "off");
    assert.equal((await bedOf(alpha))?.state, "off");
    await alpha.close();
    apps.shift();
    await eventually("beta's own hub connection, its states read", () => beta.ctx.hub?.client?.connected === true && beta.ctx.hub.client.ready, 5000);
    hub.setState("binary_sensor.rose_bed", "on");
    await eventually("beta reading its own connection", async () => (await bedOf(beta))?.state === "on");
  });
});
