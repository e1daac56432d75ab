/**
 * What reaches the app from outside before any handler: bodies are read only once the
 * caller is known and within the route's limit; NUL characters and deep nesting are
 * refused with 422 naming the field; oversized headers get a JSON answer.
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";
import { rawRequest } from "../support/raw-http";

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);

describe("security: bodies, NUL characters, nesting and headers at the edge", function () {
  this.timeout(60_000);
  let t: TestApp;
  let port: number;
  let hook: number;
  let secret: string;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
    port = Number(new URL(t.baseUrl).port);
    hook = (await t.post("/api/v1/rules", { name: "Doorbell", trigger_type: "webhook" })).body.id;
    secret = (await t.post(`/api/v1/webhooks/${hook}/generate-secret`)).body.secret;
  });
  after(() => t.close());

  it("answers an unauthenticated 23 MB upload with 401 at once, without reading the body", async () => {
    // Only the headers and 1 KB are sent: a server that reads bodies before keys would wait.
    const res = await rawRequest(port, {
      method: "POST",
      target: "/api/v1/rooms",
      headers: { "content-type": "application/json", "content-length": String(23 * 1024 * 1024) },
      body: "{" + " ".repeat(1024),
      timeoutMs: 3000,
    });
    assert.equal(res.status, 401);
    assert.equal(typeof (res.json as { detail: string }).detail, "string");
  });

  it("answers a webhook with a wrong secret with 403 at once, without reading the body", async () => {
    const res = await rawRequest(port, {
      method: "POST",
      target: `/api/v1/webhooks/${hook}`,
      headers: { "content-type": "application/json", "x-webhook-secret": "wrong", "content-length": String(23 * 1024 * 1024) },
      body: "{" + " ".repeat(1024),
      timeoutMs: 3000,
    });
    assert.equal(res.status, 403);
  });

  it("limits an ordinary JSON body to 1 MB (413), even for the admin", async () => {
    const res = await t.request("POST", "/api/v1/rooms", { body: { name: "big", floor: "x".repeat(1_100_000) } });
    assert.equal(res.status, 413);
    assert.match(res.body.detail, /too large/);
  });

  it("refuses a NUL character in a body field with 422 naming the field", async () => {
    const res = await t.post("/api/v1/rooms", { name: "Kit\u0000chen" });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail, "body.name: contains a NUL character");
    const nestedRes = await t.post("/api/v1/image/render", { regions: { title: "Good\u0000morning" } });
    assert.equal(nestedRes.status, 422);
    assert.equal(nestedRes.body.detail, "body.regions.title: contains a NUL character");
  });

  it("refuses a NUL character in a multipart text field (the e-ink preview form) with 422 naming it", async () => {
    const form = new FormData();
    form.append("title", "Good\u0000morning");
    const res = await fetch(`${t.baseUrl}/api/v1/image/preview-form`, { method: "POST", headers: { "x-api-key": KEYS.admin }, body: form });
    assert.equal(res.status, 422);
    assert.deepEqual(await res.json(), { detail: "body.title: contains a NUL character" });
  });

  it("refuses a NUL character in a query parameter with 422 naming it", async () => {
    const res = await t.get("/api/v1/sensors?sensor_type=cam%00era");
    assert.equal(res.status, 422);
    assert.equal(res.body.detail, "query.sensor_type: contains a NUL character");
    const events = await t.get("/api/v1/events?status=%00");
    assert.equal(events.status, 422);
  });

  it("refuses a webhook body nested 2,000 levels deep with 422 (and fires nothing)", async () => {
    const res = await t.request("POST", `/api/v1/webhooks/${hook}`, {
      key: null,
      headers: { "x-webhook-secret": secret, "content-type": "application/json" },
      rawBody: `{"a":${nested(2000)}}`,
    });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /^body: nested deeper than 64 levels/);
    const runs = await t.get(`/api/v1/workflows?rule_id=${hook}`);
    assert.equal(runs.body.length ?? runs.body.items?.length ?? 0, 0);
  });

  it("refuses deep nesting on every authenticated route too", async () => {
    const res = await t.request("POST", "/api/v1/rules", {
      rawBody: `{"name":"x","trigger_type":"manual","description":${nested(100)}}`,
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.status, 422);
  });

  it("answers headers over 16 KB with 431 and a JSON detail", async () => {
    const res = await rawRequest(port, { method: "GET", target: "/api/v1/rooms", headers: { "x-api-key": KEYS.admin, "x-padding": "p".repeat(20_000) } });
    assert.equal(res.status, 431);
    assert.match((res.json as { detail: string }).detail, /headers/);
  });

  it("answers a malformed request line with 400 and a JSON detail", async () => {
    const res = await rawRequest(port, { method: "GET", target: "/api/v1/rooms HTTP/9.9 junk" });
    assert.equal(res.status, 400);
    assert.equal(typeof (res.json as { detail: string }).detail, "string");
  });

  it("accepts a request line in absolute form whose authority is the Host, routed and checked as its path (RFC 9112 3.2.2)", async () => {
    const authority = `127.0.0.1:${port}`;
    const admin = { host: authority, "x-api-key": KEYS.admin, "content-type": "application/json" };
    const list = await rawRequest(port, { method: "GET", target: `http://${authority}/api/v1/rooms`, headers: admin });
    assert.equal(list.status, 200, list.body);
    const made = await rawRequest(port, {
      method: "POST",
      target: `http://${authority}/api/v1/rooms`,
      headers: admin,
      body: JSON.stringify({ name: "Absolute" }),
    });
    assert.equal(made.status, 201, made.body);
    // The same permission check as the path: a caregiver may not add a room.
    const caregiver = { ...admin, "x-api-key": KEYS.caregiver };
    const refused = await rawRequest(port, {
      method: "POST",
      target: `HTTP://${authority}/api/v1/rooms`,
      headers: caregiver,
      body: JSON.stringify({ name: "No" }),
    });
    assert.equal(refused.status, 403, refused.body);
    // The Host rules judge the authority: /mcp from a name it does not know is refused.
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    const mcpHeaders = {
      host: `evil.example:${port}`,
      "x-api-key": KEYS.mcp,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const rebound = await rawRequest(port, { method: "POST", target: `http://evil.example:${port}/mcp`, headers: mcpHeaders, body: init });
    assert.equal(rebound.status, 403, rebound.body);
    // An authority that is not the Host header, another scheme or user info: 400.
    for (const target of [`http://other.example/api/v1/rooms`, `https://${authority}/api/v1/rooms`, `http://user@${authority}/api/v1/rooms`]) {
      const res = await rawRequest(port, { method: "GET", target, headers: admin });
      assert.equal(res.status, 400, target);
      assert.match((res.json as { detail: string }).detail, /^request target:/);
    }
  });

  it("needs a key for the app info", async () => {
    assert.equal((await t.get("/api/v1/admin/app-info", null)).status, 401);
    assert.equal((await t.get("/api/v1/admin/app-info", KEYS.caregiver)).status, 200);
  });
});
