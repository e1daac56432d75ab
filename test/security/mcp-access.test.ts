/**
 * MCP as an attacker would try it (issue 51, items 7 and 12): one key opening sessions in a
 * loop fills only its own share and never ends another key's session (newcomers are refused,
 * as on /ws), and the REST mirror of the tools checks Host and Origin as `/mcp` does.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { MAX_SESSIONS_PER_KEY } from "../../runtime/care/surfaces/mcp/server";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
};
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };
const MCP_ACCEPT = { accept: "application/json, text/event-stream", "content-type": "application/json" };

/** A request with exactly these headers (fetch would not let the test set Host). */
function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (d) => (text += String(d)));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text }));
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe("security: MCP sessions per key, and the REST mirror's Host and Origin check", function () {
  this.timeout(120_000);
  let t: TestApp;
  let port: number;
  const initialize = (key: string) => fetch(`${t.baseUrl}/mcp`, { method: "POST", headers: { ...MCP_ACCEPT, "x-api-key": key }, body: JSON.stringify(INIT) });
  const list = (key: string, sid: string) =>
    fetch(`${t.baseUrl}/mcp`, { method: "POST", headers: { ...MCP_ACCEPT, "x-api-key": key, "mcp-session-id": sid }, body: JSON.stringify(LIST) });

  before(async () => {
    t = await startTestApp();
    port = Number(new URL(t.baseUrl).port);
  });
  after(() => t.close());

  it("keeps the admin's session while another key initializes 300 sessions at once; that key gets only its share", async () => {
    const admin = await initialize(KEYS.admin);
    const adminSid = admin.headers.get("mcp-session-id")!;
    await admin.text();
    assert.ok(adminSid);
    const burst = await Promise.all(
      Array.from({ length: 300 }, async () => {
        const res = await initialize(KEYS.mcp);
        const body = (await res.json()) as { detail?: string };
        return { status: res.status, retryAfter: res.headers.get("retry-after"), detail: body.detail };
      }),
    );
    const opened = burst.filter((r) => r.status === 200).length;
    const refused = burst.filter((r) => r.status === 429);
    assert.equal(opened, MAX_SESSIONS_PER_KEY);
    assert.equal(refused.length, 300 - MAX_SESSIONS_PER_KEY);
    assert.match(refused[0].detail ?? "", /Too many MCP sessions with this key/);
    assert.ok(Number(refused[0].retryAfter) > 0);
    // The admin's session still answers, and the admin may open more.
    const still = await list(KEYS.admin, adminSid);
    assert.equal(still.status, 200, await still.text());
    const another = await initialize(KEYS.admin);
    assert.equal(another.status, 200);
    await another.text();
  });

  it("frees a key's place when one of its sessions ends (DELETE /mcp)", async () => {
    const full = await initialize(KEYS.mcp);
    assert.equal(full.status, 429);
    await full.text();
    // The admin fills its own share (it holds two from the test above) ...
    const opened: string[] = [];
    for (let i = 0; i < MAX_SESSIONS_PER_KEY; i++) {
      const res = await initialize(KEYS.admin);
      if (res.status === 200) opened.push(res.headers.get("mcp-session-id")!);
      await res.text();
    }
    assert.equal(opened.length, MAX_SESSIONS_PER_KEY - 2);
    const refused = await initialize(KEYS.admin);
    assert.equal(refused.status, 429);
    await refused.text();
    // ... and one session ended makes room for one more.
    const del = await fetch(`${t.baseUrl}/mcp`, { method: "DELETE", headers: { "x-api-key": KEYS.admin, "mcp-session-id": opened[0] } });
    assert.equal(del.status, 200);
    const again = await initialize(KEYS.admin);
    assert.equal(again.status, 200);
    await again.text();
  });

  it("refuses the REST mirror from another site's page (Origin) or a rebound host name (Host), as /mcp", async () => {
    const key = { "x-api-key": KEYS.mcp, "content-type": "application/json" };
    for (const [method, path] of [
      ["GET", "/api/v1/mcp/tools"],
      ["POST", "/api/v1/mcp/tools/get_rules"],
      ["GET", "/api/v1/mcp/calls"],
    ]) {
      const body = method === "POST" ? {} : undefined;
      const evil = await raw(port, method, path, { ...key, origin: "http://evil.example" }, body);
      assert.equal(evil.status, 403, `${method} ${path}`);
      assert.match(evil.body.detail, /Origin 'http:\/\/evil.example' is not allowed/);
      const rebound = await raw(port, method, path, { ...key, host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, body);
      assert.equal(rebound.status, 403, `${method} ${path}`);
      assert.match(rebound.body.detail, /Host 'evil.example:\d+' is not allowed/);
      // The service's own address, and agents that send no Origin, still get through.
      assert.equal((await raw(port, method, path, key, body)).status, 200, `${method} ${path}`);
      assert.equal((await raw(port, method, path, { ...key, origin: `http://127.0.0.1:${port}` }, body)).status, 200, `${method} ${path}`);
    }
  });
});
