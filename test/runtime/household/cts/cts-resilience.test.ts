/**
 * What the tracking consumer survives: its broker going away and coming back (a broker of the
 * test's own, on another port, never the machine's), and careflow itself killed with -9 while
 * events pour in at 1,000 a second: after the restart every event is applied, none twice.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { openStore } from "../../../../runtime/platform/db/store";
import { streamNames } from "../../../../runtime/household/cts/cts-streams";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { freshDatabase, type TestDatabase } from "../../../support/test-db";
import { eventually } from "../../../support/eventually";
import { startService, type ServiceProcess } from "../../../support/service-process";
import { deleteStreams, NATS_SERVER_BIN, NATS_URL, ownBroker, requireNats, uniquePrefix, type OwnBroker } from "../../../support/nats";
import { CtsPublisher } from "../../../fakes/cts-publisher";
import { skipForMissingService } from "../../../support/missing-service";

const appliedEvents = async (db: { db: import("knex").Knex }, prefix: string) => {
  const stream = streamNames(prefix, "tracking.events").stream;
  const applied = await db.db("cts_applied").where({ stream }).count<{ n: number | string }[]>({ n: "*" });
  const frames = await db.db("cts_frames").count<{ n: number | string }[]>({ n: "*" });
  return { applied: Number(applied[0].n), frames: Number(frames[0].n) };
};

describe("continuous tracking: the broker restarts", function () {
  this.timeout(60_000);
  let broker: OwnBroker;
  let t: TestApp;
  let pub: CtsPublisher;
  const prefix = uniquePrefix("restart");

  before(async function () {
    if (!fs.existsSync(NATS_SERVER_BIN)) {
      skipForMissingService(this, `${NATS_SERVER_BIN} is absent, so the test cannot run a broker of its own`);
    }
    broker = await ownBroker(14_000 + (process.pid % 1000));
    t = await startTestApp({ settings: { cts: { enabled: true, nats_url: broker.url, stream_prefix: prefix, stale_seconds: 600, ack_wait_seconds: 2 } } });
    await eventually("the broker link", () => t.app.cts.health().state === "connected");
    pub = await CtsPublisher.connect(broker.url, prefix);
  });
  after(async () => {
    await t?.close();
    await pub?.close().catch(() => undefined);
    await broker?.dispose();
  });

  const publish = (from: number, n: number) => pub.roseBetweenRooms(from, n, "r");

  it("runs on while the broker is down, says so in /health, and picks up where it was when it returns", async () => {
    await publish(0, 50);
    await eventually("50 applied", async () => (await appliedEvents(t.app.ctx, prefix)).applied === 50);
    await pub.close();
    await broker.stop();
    const down = await eventually("/health to say degraded", async () => {
      const res = await t.get("/health", null);
      return res.status === 503 ? res : undefined;
    });
    assert.equal(down.body.cts.state, "reconnecting");
    assert.match(down.body.detail, /continuous tracking/);
    assert.equal((await t.get("/api/v1/rooms")).status, 200, "the service runs on");
    await broker.start();
    await eventually("the link to come back", () => t.app.cts.health().state === "connected", 20_000);
    pub = await CtsPublisher.connect(broker.url, prefix);
    await publish(50, 50);
    await eventually("100 applied", async () => (await appliedEvents(t.app.ctx, prefix)).applied === 100, 20_000);
    assert.deepEqual(await appliedEvents(t.app.ctx, prefix), { applied: 100, frames: 100 });
    assert.equal((await t.get("/health", null)).status, 200);
  });
});

describe("continuous tracking: careflow killed with -9 under 1,000 events/s", function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let svc: ServiceProcess | undefined;
  let pub: CtsPublisher;
  const prefix = uniquePrefix("kill");
  const TOTAL = 3000;

  before(async function () {
    await requireNats(this);
    db = await freshDatabase();
    const file = path.join(db.dataDir, "settings.json");
    fs.writeFileSync(file, JSON.stringify({ cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix, stale_seconds: 600, ack_wait_seconds: 2 } }));
    const env = {
      CAREFLOW_DATA_DIR: db.dataDir,
      CAREFLOW_ADMIN_KEY: "crash-admin-key-0001",
      CAREFLOW_DEMO: "0",
      CAREFLOW_SETTINGS: file,
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    };
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    svc = await startService(env, 60_000);
    (this as unknown as { env: NodeJS.ProcessEnv }).env = env;
  });
  after(async () => {
    await svc?.stop("SIGTERM");
    await pub?.close();
    await deleteStreams(NATS_URL, prefix).catch(() => undefined);
    await db?.drop();
  });

  it("loses nothing and applies nothing twice", async function () {
    const env = (this.test?.parent?.ctx as unknown as { env: NodeJS.ProcessEnv }).env;
    const started = Date.now();
    let killed = false;
    const publishing = (async () => {
      for (let i = 0; i < TOTAL; i++) {
        // 1,000 a second: a batch of 50 every 50 ms.
        if (i % 50 === 0) await new Promise((r) => setTimeout(r, Math.max(0, started + i - Date.now())));
        if (!killed && i === TOTAL / 2) {
          killed = true;
          await svc!.stop("SIGKILL");
          svc = undefined;
        }
        void pub.event({
          camera_id: "hall-cam",
          room_name: i % 2 ? "Hallway" : "Kitchen",
          people: [{ ph_id: `ph-${i % 7}`, identity_id: "rose" }],
          event_id: `k-${i}`,
        });
      }
    })();
    await publishing;
    svc = await startService(env, 60_000);
    const store = await openStore(db.databaseUrl, db.dataDir);
    try {
      const counts = await eventually(
        "every event applied",
        async () => {
          const c = await appliedEvents(store, prefix);
          return c.applied >= TOTAL ? c : undefined;
        },
        60_000,
      );
      await new Promise((r) => setTimeout(r, 3000)); // redeliveries of what was in flight at the kill arrive now
      assert.deepEqual(await appliedEvents(store, prefix), { applied: TOTAL, frames: TOTAL }, `${JSON.stringify(counts)}: 0 lost, 0 applied twice`);
    } finally {
      await store.close();
    }
  });
});
