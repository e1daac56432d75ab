/**
 * Keys across a cluster (issue 43 §2): a key made through one instance works through another
 * at its very next request, and revoked through that one is refused by the first at once; a
 * socket opened with it on the first instance closes. Two in-process instances on one
 * PostgreSQL database (PostgreSQL pass only: SQLite cannot be shared).
 */
import assert from "node:assert/strict";
import path from "node:path";
import WebSocket from "ws";
import { createApp, type CareflowApp } from "../../../../runtime/app/app";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { KEY_REVOKED_CLOSE } from "../../../../runtime/platform/ws/webapp-hub";
import { requirePgPass, sharedPg, type SharedPg } from "../../../support/pg-cluster";
import { KEYS, testAuthSettings } from "../../../support/test-app";

describe("admin keys: across the instances of a cluster", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  const apps: CareflowApp[] = [];
  const bases: string[] = [];

  const start = async (id: string): Promise<string> => {
    const settings = buildSettings({ auth: testAuthSettings(), cluster: { enabled: true, instance_id: id, lease_seconds: 1 } });
    const app = await createApp({
      config: { port: 0, dataDir: path.join(pg.dataDir, id), databaseUrl: pg.url, settingsFile: undefined, settings },
      log: createLogger("silent"),
      nodeRed: false,
    });
    apps.push(app);
    return `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}`;
  };
  const call = async (base: string, method: string, urlPath: string, key: string, body?: unknown) => {
    const res = await fetch(base + urlPath, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as any) : null };
  };

  before(async function () {
    requirePgPass(this);
    pg = await sharedPg(this);
    bases.push(await start("alpha"), await start("beta"));
  });
  after(async () => {
    for (const a of apps) await a.close().catch(() => undefined);
    await pg?.drop();
  });

  it("takes a key made on one instance on the other at once, and refuses it everywhere once revoked on either", async () => {
    const [alpha, beta] = bases;
    const made = await call(alpha, "POST", "/api/v1/admin/keys", KEYS.admin, { name: "Anna's tablet", kind: "api", role: "webapp" });
    assert.equal(made.status, 201, made.text);
    const key = made.body.key as string;
    const nurse = await call(alpha, "POST", "/api/v1/admin/keys", KEYS.admin, { name: "nurse", kind: "api", role: "caregiver" });
    assert.equal((await call(beta, "GET", "/api/v1/rooms", nurse.body.key)).status, 200);

    const ws = new WebSocket(`${alpha.replace("http", "ws")}/ws`, [key]);
    const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));

    const del = await call(beta, "DELETE", `/api/v1/admin/keys/${made.body.id}`, KEYS.admin);
    assert.equal(del.status, 204, del.text);
    assert.equal((await call(alpha, "POST", "/api/v1/interactive-responses", key, {})).status, 401);
    // Its socket on the other instance closes too (the revocation crosses on the cluster link).
    assert.equal(await closed, KEY_REVOKED_CLOSE);

    const rotated = await call(beta, "POST", `/api/v1/admin/keys/${nurse.body.id}/rotate`, KEYS.admin, {});
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal((await call(alpha, "GET", "/api/v1/rooms", nurse.body.key)).status, 401);
    assert.equal((await call(alpha, "GET", "/api/v1/rooms", rotated.body.key)).status, 200);
    // The audit log is one for the cluster: both instances' changes, in order.
    const audit = await call(alpha, "GET", "/api/v1/admin/audit", KEYS.admin);
    assert.deepEqual(
      audit.body.map((e: { action: string; target_name: string }) => `${e.action} ${e.target_name}`),
      ["rotate nurse", "revoke Anna's tablet", "create nurse", "create Anna's tablet"],
    );
  });
});
