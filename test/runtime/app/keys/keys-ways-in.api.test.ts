/**
 * A key made while the service runs works on every way in (REST, `/ws`, `/ws/pipeline`, `/mcp`,
 * the editor's login and Bearer), and once revoked or rotated is refused on all of them at the
 * next attempt; sockets opened with it close. A revoked key counts as a wrong one in the
 * per-address throttle, as any unknown key does.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { KEY_REVOKED_CLOSE } from "../../../../runtime/platform/ws/webapp-hub";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
};
const MCP_ACCEPT = { accept: "application/json, text/event-stream", "content-type": "application/json" };

interface Socket {
  ws: WebSocket;
  closed: Promise<number>;
}

/** Opens a socket with the key as its subprotocol; the socket once open, or the status it was refused with. */
function open(url: string, key: string): Promise<Socket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [key]);
    const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
    ws.once("open", () => resolve({ ws, closed }));
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.once("error", reject);
  });
}

describe("admin keys: a managed key on every way in", function () {
  this.timeout(60_000);
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-29T09:00:00Z"));
  const wsUrl = (path: string) => t.baseUrl.replace("http", "ws") + path;
  const make = async (name: string, role: string): Promise<{ id: number; key: string }> => {
    const res = await t.post("/api/v1/admin/keys", { name, kind: "api", role });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const login = (username: string, password: string, scope = "*") =>
    fetch(`${t.baseUrl}/editor/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: "node-red-editor", grant_type: "password", scope, username, password }).toString(),
    });
  const mcp = (key: string) => fetch(`${t.baseUrl}/mcp`, { method: "POST", headers: { ...MCP_ACCEPT, "x-api-key": key }, body: JSON.stringify(INIT) });

  before(async () => {
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: { auth: { ...testAuthSettings(), throttle: { max_failures: 3, window_seconds: 60, block_seconds: 30, max_block_seconds: 600 } } },
    });
  });
  after(() => t.close());
  // Each test's refusals (a revoked key is a wrong one) start from a fresh throttle window.
  beforeEach(() => clock.advance(20 * 60_000));

  it("opens /ws and /ws/pipeline with managed keys and closes them when the key is revoked or rotated", async () => {
    const tablet = await make("kitchen tablet", "webapp");
    const nurse = await make("nurse", "caregiver");
    const app = await open(wsUrl("/ws"), tablet.key);
    const feed = await open(wsUrl("/ws/pipeline"), nurse.key);
    assert.ok(typeof app !== "number", `/ws refused: ${String(app)}`);
    assert.ok(typeof feed !== "number", `/ws/pipeline refused: ${String(feed)}`);

    assert.equal((await t.request("DELETE", `/api/v1/admin/keys/${tablet.id}`)).status, 204);
    assert.equal(await app.closed, KEY_REVOKED_CLOSE);
    assert.equal(await open(wsUrl("/ws"), tablet.key), 401);

    const rotated = await t.post(`/api/v1/admin/keys/${nurse.id}/rotate`, {});
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(await feed.closed, KEY_REVOKED_CLOSE);
    assert.equal(await open(wsUrl("/ws/pipeline"), nurse.key), 401);
    const again = await open(wsUrl("/ws/pipeline"), rotated.body.key);
    assert.ok(typeof again !== "number", `the new key refused: ${String(again)}`);
    again.ws.close();
  });

  it("lets a managed mcp_readonly key use /mcp, until revoked", async () => {
    const agent = await make("voice assistant", "mcp_readonly");
    const ok = await mcp(agent.key);
    assert.equal(ok.status, 200, await ok.text());
    assert.equal((await t.request("DELETE", `/api/v1/admin/keys/${agent.id}`)).status, 204);
    assert.equal((await mcp(agent.key)).status, 401);
  });

  it("logs a managed admin key into the editor and takes it as Bearer, until revoked", async () => {
    const admin = await make("second admin", "admin");
    const res = await login("admin", admin.key);
    assert.equal(res.status, 200, await res.text());
    const flows = await fetch(`${t.baseUrl}/editor/flows`, { headers: { authorization: `Bearer ${admin.key}` } });
    assert.equal(flows.status, 200);
    assert.equal((await t.request("DELETE", `/api/v1/admin/keys/${admin.id}`)).status, 204);
    assert.equal((await login("admin", admin.key)).status, 401);
    assert.equal((await fetch(`${t.baseUrl}/editor/flows`, { headers: { authorization: `Bearer ${admin.key}` } })).status, 401);
  });

  it("ends the editor sessions a key opened when it is revoked or rotated, their comms sockets too; other keys' sessions stay", async () => {
    const session = async (user: string, key: string): Promise<string> => {
      const res = await login(user, key, user === "admin" ? "*" : "read");
      const text = await res.text();
      assert.equal(res.status, 200, text);
      return (JSON.parse(text) as { access_token: string }).access_token;
    };
    const flows = (token: string) => fetch(`${t.baseUrl}/editor/flows`, { headers: { authorization: `Bearer ${token}` } });
    /** The editor's comms socket, authenticated with the session: the frames it gets and when it closes. */
    const comms = async (token: string) => {
      const ws = new WebSocket(wsUrl("/editor/comms"));
      const frames: string[] = [];
      ws.on("message", (d) => frames.push(String(d)));
      const closed = new Promise<void>((r) => ws.once("close", () => r()));
      await new Promise((r, j) => (ws.once("open", r), ws.once("error", j)));
      ws.send(JSON.stringify({ auth: token }));
      await eventually("auth answered", () => frames.some((f) => f.includes('"auth"')));
      return { frames, closed };
    };
    const nurse = await make("night nurse", "caregiver");
    const second = await make("son's laptop", "admin");
    const nurseSession = await session("caregiver", nurse.key);
    const secondSession = await session("admin", second.key);
    const ownerSession = await session("admin", KEYS.admin);
    for (const token of [nurseSession, secondSession, ownerSession]) assert.equal((await flows(token)).status, 200);
    const socket = await comms(secondSession);
    assert.ok(socket.frames[0]?.includes('"ok"'), socket.frames.join());

    assert.equal((await t.request("DELETE", `/api/v1/admin/keys/${second.id}`)).status, 204);
    await socket.closed; // told, then closed, without any request of its own
    assert.ok(
      socket.frames.some((f) => f.includes('"fail"')),
      socket.frames.join(),
    );
    const refused = await flows(secondSession);
    assert.equal(refused.status, 401);
    assert.match(((await refused.json()) as { detail: string }).detail, /session has ended.*revoked or changed/);
    assert.equal((await flows(ownerSession)).status, 200, "the owner's own session stays");
    assert.equal((await flows(nurseSession)).status, 200, "another key's session of another user stays");

    // The editor left open keeps asking with its ended session: told so each time, never taken for guessing keys.
    for (let i = 0; i < 4; i++) assert.equal((await flows(secondSession)).status, 401);
    assert.equal((await flows(ownerSession)).status, 200, "the address is not blocked");

    assert.equal((await t.post(`/api/v1/admin/keys/${nurse.id}/rotate`, {})).status, 200);
    assert.equal((await flows(nurseSession)).status, 401, "rotated: the old key's session ends");
    assert.equal((await flows(ownerSession)).status, 200);
  });

  it("ends a session no key can be checked for (one opened before sessions remembered their key)", async () => {
    const redTokens = require("@node-red/editor-api/lib/auth/tokens") as {
      create(user: string, client: string, scope: string): Promise<{ accessToken: string }>;
    };
    const { accessToken } = await redTokens.create("admin", "node-red-editor", "*");
    const res = await fetch(`${t.baseUrl}/editor/flows`, { headers: { authorization: `Bearer ${accessToken}` } });
    assert.equal(res.status, 401);
    assert.match(((await res.json()) as { detail: string }).detail, /Log in again/);
  });

  it("counts a revoked key as a wrong one: the address is blocked after max_failures", async () => {
    const gone = await make("old phone", "caregiver");
    assert.equal((await t.request("DELETE", `/api/v1/admin/keys/${gone.id}`)).status, 204);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.get("/api/v1/rooms", gone.key)).status);
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  });
});
