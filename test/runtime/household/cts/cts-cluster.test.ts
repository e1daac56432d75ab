/**
 * Continuous tracking with several instances, on the machine's PostgreSQL and NATS: one
 * instance consumes the streams (the holder of the `cts` lease), so a person's fixes are applied
 * in order and once; the others stand by, healthy. When the holder stops, another takes the
 * streams where the durable consumers were and fires the dementia signals the holder stored but
 * had not fired yet, and places late events of a track under the identity the holder's last
 * revision gave it. Node-RED runs once per process, so only alpha has rules; beta holds first.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { createApp, type CareflowApp } from "../../../../runtime/app/app";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { upsertSignal } from "../../../../runtime/household/tracking/signals.store";
import { streamNames } from "../../../../runtime/household/cts/cts-streams";
import { eventually } from "../../../support/eventually";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../../support/nats";
import { requirePgPass, sharedPg, type SharedPg } from "../../../support/pg-cluster";
import { KEYS, testAuthSettings } from "../../../support/test-app";
import { CtsPublisher } from "../../../fakes/cts-publisher";

const log = createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent");

interface Instance {
  app: CareflowApp;
  base: string;
}

type Json = Record<string, any>;

describe("continuous tracking with several instances", function () {
  this.timeout(90_000);
  let pg: SharedPg;
  let pub: CtsPublisher;
  const prefix = uniquePrefix("cluster");
  const apps: CareflowApp[] = [];
  let alpha: Instance;
  let beta: Instance;
  const t0 = Date.now();

  const start = async (id: string, nodeRed: boolean): Promise<Instance> => {
    const settings = buildSettings({
      auth: testAuthSettings(),
      cluster: { enabled: true, instance_id: id, lease_seconds: 1, nats_url: NATS_URL },
      cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix, stale_seconds: 600 },
    });
    const app = await createApp({
      config: { port: 0, dataDir: path.join(pg.dataDir, id), databaseUrl: pg.url, settingsFile: undefined, settings },
      log,
      nodeRed,
    });
    apps.push(app);
    return { app, base: `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}` };
  };
  const call = async (i: Instance, method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${i.base}${url}`, {
      method,
      headers: { "x-api-key": KEYS.admin, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const health = async (i: Instance): Promise<Json> => (await fetch(`${i.base}/health`)).json() as Promise<Json>;
  const received = (h: Json) => Number(h.cts.streams[streamNames(prefix, "tracking.events").stream]?.received ?? 0);
  const applied = async (key: Parameters<typeof streamNames>[1] = "tracking.events") =>
    Number(
      (
        await alpha.app.ctx
          .db("cts_applied")
          .where({ stream: streamNames(prefix, key).stream })
          .count({ n: "*" })
      )[0].n,
    );
  const publish = (from: number, n: number) => pub.roseBetweenRooms(from, n, "c", (i) => t0 + i * 10);

  before(async function () {
    requirePgPass(this);
    await requireNats(this);
    pg = await sharedPg(this);
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    // Beta first: it takes the streams; alpha, started after, stands by.
    beta = await start("beta", false);
    await eventually("beta consuming the streams", async () => (await health(beta)).cts.state === "connected");
    alpha = await start("alpha", true);
    assert.equal((await call(alpha, "POST", "/api/v1/persons", { person_id: "rose", display_name: "Rose" })).status, 201);
  });
  after(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await pub?.close().catch(() => undefined);
    await deleteStreams(NATS_URL, prefix).catch(() => undefined);
    await pg?.drop();
  });

  it("applies every event once, through the one instance that consumes; the other stands by, healthy", async () => {
    await publish(0, 40);
    await eventually("40 events applied", async () => (await applied()) === 40);
    const [ha, hb] = [await health(alpha), await health(beta)];
    assert.equal(hb.cts.state, "connected");
    assert.equal(ha.cts.state, "standby");
    assert.equal(ha.status, "ok", JSON.stringify(ha));
    assert.equal(hb.status, "ok", JSON.stringify(hb));
    assert.equal(received(hb), 40);
    assert.equal(received(ha), 0, "the standby instance took none of the stream");
    const rose = await call(alpha, "GET", "/api/v1/persons/rose/location");
    assert.equal(rose.body.room_name, "Hallway", JSON.stringify(rose.body));
  });

  it("when the consuming instance stops, another takes the streams where they were and fires the signals it left pending and keeps its revisions", async () => {
    const ruleBundle = {
      schema_version: 1,
      rule: { name: "Rose paces at night", trigger_type: "dementia_signal" },
      contexts: [],
      steps: [{ label: "note", step_type: "condition", config: { expression: "true" } }],
      edges: [],
    };
    const imported = await call(alpha, "POST", "/api/v1/rules/import", ruleBundle);
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    // Beta stored this signal and stopped before firing its rules (the row says it must still fire).
    await beta.app.ctx.db.transaction((trx) =>
      upsertSignal(
        trx,
        { signal_id: "left-1", person_id: "rose", kind: "pacing", severity: "warning", value: null, details: {}, started_at: null },
        new Date().toISOString(),
        true,
      ),
    );
    // Beta applied a revision: track ph-t is Tom, not Rose, from revisedAt back.
    assert.equal((await call(alpha, "POST", "/api/v1/persons", { person_id: "tom", display_name: "Tom" })).status, 201);
    const revisedAt = Date.now();
    await pub.revision({ revision_id: "rev-c1", ph_id: "ph-t", previous_identity_id: "rose", new_identity_id: "tom", at: revisedAt });
    await eventually("beta applying the revision", async () => (await applied("tracking.revisions")) === 1);
    await beta.app.close();
    await eventually("alpha consuming the streams", async () => (await health(alpha)).cts.state === "connected", 20_000);
    await publish(40, 20);
    await eventually("60 events applied", async () => (await applied()) === 60, 20_000);
    assert.equal(received(await health(alpha)), 20, "alpha got only what beta had not acknowledged");
    // An event captured before the revision, still saying Rose, reaches alpha only now.
    await pub.event({
      camera_id: "hall-cam",
      room_name: "Kitchen",
      people: [{ ph_id: "ph-t", identity_id: "rose" }],
      event_id: "c-late",
      at: revisedAt - 1000,
    });
    await eventually("61 events applied", async () => (await applied()) === 61, 20_000);
    const tom = await call(alpha, "GET", "/api/v1/persons/tom/location");
    assert.equal(tom.body?.room_name, "Kitchen", `placed under the identity beta's revision gave the track: ${JSON.stringify(tom.body)}`);
    const runs = await eventually("the pending signal's rule run", async () => {
      const r = await call(alpha, "GET", `/api/v1/workflows?rule_id=${imported.body.rule_id}`);
      return r.body.length === 1 ? r.body : undefined;
    });
    assert.equal(runs[0].pipeline_data.webhook_payload.signal_id, "left-1");
    const row = await alpha.app.ctx.db("dementia_signals").where({ signal_id: "left-1" }).first("alert_state");
    assert.equal(row.alert_state, "fired");
    const rose = await call(alpha, "GET", "/api/v1/persons/rose/location");
    assert.equal(rose.body.room_name, "Hallway");
  });
});
