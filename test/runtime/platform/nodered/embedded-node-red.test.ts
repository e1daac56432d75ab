/**
 * The embedded Node-RED: editor login with an admin key, Bearer admin keys on the admin
 * API (other keys refused), a deploy stored in our database, HTTP-in nodes served at the
 * root, a non-default credential secret, and Node-RED's log in the service log.
 */
import { DEVICES_TAB_ID } from "../../../../runtime/household/devices/devices-tab";
import assert from "node:assert/strict";
import { kvGet } from "../../../../runtime/platform/db/kv";
import { readFlows } from "../../../../runtime/platform/nodered/flow-store";
import { captureLog, type CapturedLog } from "../../../support/capture-log";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const FLOW = [
  { id: "tab1", type: "tab", label: "Hello flow" },
  { id: "in1", type: "http in", z: "tab1", url: "/hello", method: "get", x: 100, y: 100, wires: [["chg1"]] },
  {
    id: "chg1",
    type: "change",
    z: "tab1",
    rules: [{ t: "set", p: "payload", pt: "msg", to: "hello from a flow", tot: "str" }],
    x: 300,
    y: 100,
    wires: [["out1"]],
  },
  { id: "out1", type: "http response", z: "tab1", statusCode: "", x: 500, y: 100, wires: [] },
  {
    id: "req1",
    type: "http request",
    z: "tab1",
    method: "GET",
    url: "http://127.0.0.1:9/",
    x: 100,
    y: 200,
    wires: [[]],
    credentials: { user: "u", password: "secret-pw" },
  },
];

describe("embedded Node-RED", function () {
  this.timeout(30000);
  let t: TestApp;
  let captured: CapturedLog;

  before(async () => {
    captured = captureLog("info");
    t = await startTestApp({ nodeRed: true, log: captured.log });
  });
  after(() => t.close());
  /** Where the deploy test is; printed with the log's last lines if it fails (it hung twice in CI on PostgreSQL). */
  let phase = "";
  afterEach(function () {
    if (this.currentTest?.state !== "failed" || !phase) return;
    const tail = captured.lines.slice(-30).map((l) => `        ${String(l.component ?? "")} ${String(l.msg)}`);
    process.stdout.write(`\n      stopped at: ${phase}\n      the log's last lines:\n${tail.join("\n")}\n`);
  });

  const admin = (path: string, init: RequestInit & { bearer?: string } = {}) =>
    fetch(`${t.baseUrl}/editor${path}`, {
      ...init,
      headers: { ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}), ...(init.headers as Record<string, string>) },
    });

  it("reports Node-RED started in /health", async () => {
    const res = await t.get("/health", null);
    assert.equal(res.body.node_red.state, "started");
  });

  it("logs the editor in as admin with an admin key as the password", async () => {
    const body = new URLSearchParams({ client_id: "node-red-editor", grant_type: "password", scope: "*", username: "admin", password: KEYS.admin });
    const res = await admin("/auth/token", { method: "POST", body });
    assert.equal(res.status, 200);
    const token = (await res.json()) as { access_token: string };
    assert.ok(token.access_token);
    assert.equal((await admin("/flows", { bearer: token.access_token })).status, 200, "the session token works");
  });

  it("refuses the editor login with a caregiver key or another user name", async () => {
    for (const [username, password] of [
      ["admin", KEYS.caregiver],
      ["rose", KEYS.admin],
    ]) {
      const body = new URLSearchParams({ client_id: "node-red-editor", grant_type: "password", scope: "*", username, password });
      const res = await admin("/auth/token", { method: "POST", body });
      assert.ok(res.status === 401 || res.status === 403, `${username}: got ${res.status}`);
    }
  });

  it("accepts Authorization: Bearer <admin key> on the admin API, a caregiver key for reading only, and refuses other keys", async () => {
    assert.equal((await admin("/flows", { bearer: KEYS.admin })).status, 200);
    assert.equal((await admin("/flows", { bearer: KEYS.caregiver })).status, 200);
    assert.equal((await admin("/flows", { method: "POST", bearer: KEYS.caregiver, body: "{}" })).status, 401);
    assert.equal((await admin("/flows", { bearer: KEYS.mcp })).status, 401);
    assert.equal((await admin("/flows")).status, 401);
  });

  it("offers Node-RED's core nodes but the unsafe ones, and careflow's own", async () => {
    const res = await admin("/nodes", { bearer: KEYS.admin, headers: { accept: "application/json" } });
    assert.equal(res.status, 200);
    const sets = (await res.json()) as Array<{ module: string; types: string[]; enabled: boolean }>;
    const offered = new Set(sets.filter((s) => s.enabled).flatMap((s) => s.types));
    for (const type of ["inject", "debug", "function", "change", "switch", "http in", "http request", "json", "delay"])
      assert.ok(offered.has(type), `core node ${type}`);
    for (const type of ["exec", "file", "tcp in", "mqtt in", "websocket in"]) assert.ok(!offered.has(type), `unsafe core node ${type}`);
    assert.ok(offered.has("care-filter-dementia_signal"), "careflow's own nodes");
  });

  it("stores a deploy in our database and serves its HTTP-in node at the root", async () => {
    phase = "the deploy";
    const res = await admin("/flows", {
      method: "POST",
      bearer: KEYS.admin,
      headers: { "content-type": "application/json", "Node-RED-API-Version": "v2", "Node-RED-Deployment-Type": "full" },
      body: JSON.stringify({ flows: FLOW }),
      signal: AbortSignal.timeout(20000),
    });
    assert.equal(res.status, 200, await res.text());
    phase = "reading the stored flows";
    const stored = await readFlows(t.app.ctx.db);
    // The full deploy left out the Devices tab: it is stored back (devices-tab.ts).
    assert.deepEqual(
      stored.filter((n) => n.id !== DEVICES_TAB_ID && n.z !== DEVICES_TAB_ID).map((n) => n.id),
      ["tab1", "in1", "chg1", "out1", "req1"],
    );
    assert.ok(stored.some((n) => n.id === DEVICES_TAB_ID));
    // Node-RED answers the deploy before the new flows have started, and the Devices tab's
    // restoration reloads them once more right after. A request caught in that reload is dropped
    // unanswered, as any HTTP-in request is during a deploy (this test hung on it twice in CI on
    // PostgreSQL): each try gets 2 s, then the client asks again, as a device would.
    phase = "asking the flow";
    const get = () => fetch(`${t.baseUrl}/hello`, { signal: AbortSignal.timeout(2000) }).catch(() => null);
    let hello = await get();
    for (let i = 0; i < 100 && (hello === null || hello.status === 404); i++) {
      await new Promise((r) => setTimeout(r, 50));
      hello = await get();
    }
    assert.equal(hello?.status, 200);
    assert.equal(await hello.text(), "hello from a flow");
    phase = "";
  });

  it("encrypts node credentials with a generated secret, not Node-RED's default", async () => {
    const secret = await kvGet(t.app.ctx.db, "node-red:credential-secret");
    assert.ok(secret && secret.length >= 32);
    const creds = JSON.parse((await kvGet(t.app.ctx.db, "node-red:credentials")) ?? "{}") as Record<string, unknown>;
    assert.ok(typeof creds.$ === "string", "credentials are stored encrypted");
    assert.ok(!JSON.stringify(creds).includes("secret-pw"));
  });

  it("folds Node-RED's log into the service log", () => {
    const nr = captured.lines.filter((l) => l.component === "node-red");
    assert.ok(
      nr.some((l) => String(l.msg).includes("Started flows")),
      "Node-RED's start-up lines are in our log",
    );
  });

  it("re-attaches to a second app with a fresh store and serves that store's flows", async () => {
    const second = await startTestApp({ nodeRed: true });
    try {
      assert.equal((await fetch(`${second.baseUrl}/hello`)).status, 404, "the first app's flow is not in the new store");
      const flows = await fetch(`${second.baseUrl}/editor/flows`, { headers: { authorization: `Bearer ${KEYS.admin}` } });
      const nodes = (await flows.json()) as Array<{ id: string; z?: string }>;
      assert.deepEqual(
        nodes.filter((n) => n.id !== DEVICES_TAB_ID && n.z !== DEVICES_TAB_ID),
        [],
        "nothing but the Devices tab every store has",
      );
    } finally {
      await second.close();
    }
  });
});
