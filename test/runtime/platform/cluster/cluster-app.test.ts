/**
 * The cluster as an operator meets it: the `cluster.*` settings and their defaults, SQLite
 * refused at start with the reason, and what `GET /api/v1/admin/cluster` and `/health` say, for
 * one instance (the default) and for two instances on the machine's PostgreSQL.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createApp, type CareflowApp } from "../../../../runtime/app/app";
import { SettingsError, buildSettings } from "../../../../runtime/platform/config/load-settings";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { KEYS, startTestApp, testAuthSettings } from "../../../support/test-app";
import { sharedPg, type SharedPg } from "../../../support/pg-cluster";
import { eventually } from "../../../support/eventually";
import { startFakeChat, type FakeChat } from "../../../fakes/chat-server";
import { startFakeHub, type FakeHub } from "../../../fakes/hub-server";

const log = createLogger("silent");

describe("cluster: settings, the SQLite refusal, /admin/cluster and /health", function () {
  this.timeout(60_000);

  it("is off by default, with a 3 s lease and no fixed instance id", () => {
    const s = buildSettings({});
    assert.deepEqual(s.cluster, { enabled: false, nats_url: "nats://127.0.0.1:4222", instance_id: null, lease_seconds: 3 });
  });

  it("refuses a bad lease length or instance id, naming the key", () => {
    assert.throws(() => buildSettings({ cluster: { lease_seconds: 0 } }), /cluster\.lease_seconds/);
    assert.throws(() => buildSettings({ cluster: { instance_id: "a b" } }), /cluster\.instance_id/);
  });

  it("refuses cluster.enabled on SQLite at start, saying why, before the database file is made", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-cluster-sqlite-"));
    try {
      const settings = buildSettings({ cluster: { enabled: true } });
      await assert.rejects(
        createApp({ config: { port: 0, dataDir, databaseUrl: undefined, settingsFile: undefined, settings }, log, nodeRed: false }),
        (err: Error) => err instanceof SettingsError && /cluster\.enabled needs PostgreSQL/.test(err.message) && /SQLite/.test(err.message),
      );
      assert.equal(fs.existsSync(path.join(dataDir, "careflow.db")), false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("lists one instance holding every lease when the cluster is off, to admin keys only", async () => {
    const t = await startTestApp({ settings: { cluster: { instance_id: "solo" } } });
    try {
      const res = await t.get("/api/v1/admin/cluster");
      assert.equal(res.status, 200);
      assert.equal(res.body.enabled, false);
      assert.deepEqual(
        res.body.instances.map((i: { instance_id: string; alive: boolean }) => [i.instance_id, i.alive]),
        [["solo", true]],
      );
      assert.ok(res.body.leases.length > 0);
      assert.ok(res.body.leases.every((l: { holder: string }) => l.holder === "solo"));
      assert.equal((await t.get("/api/v1/admin/cluster", KEYS.caregiver)).status, 403);
      const health = await t.get("/health", null);
      assert.equal(health.body.cluster, undefined, "/health says nothing of a cluster that is off");
    } finally {
      await t.close();
    }
  });

  describe("two instances on PostgreSQL", () => {
    let pg: SharedPg;
    const apps: CareflowApp[] = [];
    // Each instance talks to a Bot API of its own, so the test sees which one polls (the real one allows one poller).
    const chats: Record<string, FakeChat> = {};
    // One hub for both: it sees one connection, from the holder of the `hub` lease.
    let hub: FakeHub;
    // The hub the family sets on the Household page while both run.
    let hub2: FakeHub;
    const start = async (id: string): Promise<{ app: CareflowApp; base: string }> => {
      chats[id] = await startFakeChat({ token: "77:cluster-token", chats: [{ id: 1001, type: "private" }] });
      const settings = buildSettings({
        auth: testAuthSettings(),
        cluster: { enabled: true, instance_id: id, lease_seconds: 1 },
        hub: { url: hub.url, token: hub.token },
        notifications: {
          chat_app: { api_base_url: chats[id].url, token: "77:cluster-token", poll_timeout_seconds: 1, targets: [{ name: "Anna", chat_id: 1001 }] },
        },
      });
      const app = await createApp({
        config: { port: 0, dataDir: path.join(pg.dataDir, id), databaseUrl: pg.url, settingsFile: undefined, settings },
        log,
        nodeRed: false,
      });
      apps.push(app);
      return { app, base: `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}` };
    };
    const get = async (url: string, key: string | null = KEYS.admin) => {
      const res = await fetch(url, { headers: key ? { "x-api-key": key } : {} });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };

    before(async function () {
      pg = await sharedPg(this);
      hub = await startFakeHub();
      hub2 = await startFakeHub({ token: "second-hub-token" });
    });
    after(async () => {
      for (const a of apps) await a.close().catch(() => undefined);
      for (const c of Object.values(chats)) await c.close();
      await hub?.stop();
      await hub2?.stop();
      await pg?.drop();
    });

    it("lists both instances, and each lease held by exactly one of them", async () => {
      const a = await start("alpha");
      // Its leases are taken by rounds that run just after the start: all of them before the second instance comes.
      await eventually("alpha to hold every lease it wants", () => a.app.ctx.cluster!.leases.local().every((l) => l.token !== null), 5000);
      const b = await start("beta");
      // Each instance is a part on the others' boards (issue 44 §1): beta read alpha at its start.
      const alphaPart = await eventually(
        "alpha on beta's board",
        async () => (await get(`${b.base}/api/v1/admin/health/parts`)).body.parts.find((p: { id: string }) => p.id === "instance:alpha"),
        5000,
      );
      assert.equal(alphaPart.state, "ok");
      assert.equal(alphaPart.kind, "instance");
      // A device calling one instance is a sign of life on the other's board too (the one firing
      // system_health rules may not be the one the device calls).
      const polled = await fetch(`${a.base}/api/v1/image/active`, { headers: { authorization: KEYS.display } });
      assert.ok(polled.status < 500, `the display's poll: ${polled.status}`);
      await eventually(
        "the display's call seen on beta's board",
        async () =>
          (await get(`${b.base}/api/v1/admin/health/parts`)).body.parts.find(
            (p: { id: string; last_seen: string | null }) => p.id === "device:hall_display" && p.last_seen,
          ),
        5000,
      );
      const res = await get(`${a.base}/api/v1/admin/cluster`);
      assert.equal(res.status, 200);
      assert.equal(res.body.enabled, true);
      assert.deepEqual(
        res.body.instances.map((i: { instance_id: string; alive: boolean }) => [i.instance_id, i.alive]),
        [
          ["alpha", true],
          ["beta", true],
        ],
      );
      const names = res.body.leases.map((l: { name: string }) => l.name);
      // Without Node-RED (one per process) there is no engine, so no cron here: pg-leases.test.ts covers it.
      for (const name of ["daily-reports", "retention", "chat-poller", "hub", "escalation", "aggregator", "media-sweep", "quiz-timeouts", "knowledge-embedder"])
        assert.ok(names.includes(name), `${name} not listed: ${names.join(", ")}`);
      for (const l of res.body.leases) assert.equal(l.holder, "alpha", `${l.name} held by ${l.holder}`);
      await chats.alpha.waitFor((c) => c.method === "getUpdates");
      assert.equal(chats.beta.calls.filter((c) => c.method === "getUpdates").length, 0, "the second instance polls the chat too");
      await eventually("the holder's hub connection", () => hub.connections() === 1);
      assert.equal(a.app.ctx.hub?.client?.connected, true);
      assert.equal(apps[1].ctx.hub?.client?.connected, false);
      const health = await get(`${a.base}/health`, null);
      assert.equal(health.status, 200);
      assert.deepEqual(health.body.cluster.instances_alive, ["alpha", "beta"]);
      assert.ok(health.body.cluster.leases_held.includes("daily-reports"));
    });

    it("a hub set on the Household page through one instance is used by the holder of the connection", async () => {
      const [a, b] = apps;
      const bBase = `http://127.0.0.1:${(b.server.address() as { port: number }).port}`;
      // Set through beta, which does not hold the `hub` lease: alpha, which does, reads it from the store.
      const res = await fetch(`${bBase}/api/v1/admin/connections/hub`, {
        method: "PUT",
        headers: { "x-api-key": KEYS.admin, "content-type": "application/json" },
        body: JSON.stringify({ url: hub2.url, token: hub2.token }),
      });
      assert.equal(res.status, 200, await res.text());
      await eventually("alpha connected to the second hub", () => hub2.connections() === 1 && hub.connections() === 0, 5000);
      assert.equal(a.ctx.hub?.client?.url, hub2.url);
      assert.equal(b.ctx.hub?.client?.url, hub2.url, "beta takes it too, for when it holds the lease");
      assert.equal(b.ctx.hub?.client?.connected, false);
    });

    it("moves every lease to the other instance when the first stops", async () => {
      const [a, b] = apps;
      await a.close();
      apps.shift();
      const base = `http://127.0.0.1:${(b.server.address() as { port: number }).port}`;
      // A clean stop gives the leases back: the survivor takes them at its next round.
      const held = await eventually(
        "beta to hold every lease",
        async () => {
          const res = await get(`${base}/api/v1/admin/cluster`);
          const mine = res.body.leases.filter((l: { holder: string | null }) => l.holder === "beta").map((l: { name: string }) => l.name);
          return mine.length > 0 && mine.length === res.body.leases.length && (mine as string[]);
        },
        5000,
      );
      assert.ok(held.includes("daily-reports"), `beta holds ${held.join(", ")}`);
      assert.ok(held.includes("chat-poller"), `beta holds ${held.join(", ")}`);
      await chats.beta.waitFor((c) => c.method === "getUpdates", 5000);
      await eventually("beta's hub connection", () => b.ctx.hub?.client?.connected === true, 5000);
      assert.equal(hub2.connections(), 1);
      const res = await get(`${base}/api/v1/admin/cluster`);
      assert.deepEqual(
        res.body.instances.map((i: { instance_id: string }) => i.instance_id),
        ["beta"],
      );
    });
  });
});
