/**
 * Guessing keys by every door (issue 51, items 1, 4, 5, 16): a WebSocket upgrade takes one key
 * and counts a wrong one (a list of 1,400 candidates is no oracle), a blocked address is refused
 * everywhere (REST, /ws, /ws/pipeline, /mcp, the editor), a valid key does not clear an
 * address's count, wrong editor Bearer tokens are counted, the refusals are logged once a
 * minute, and the editor's diagnostics are the admin's only. Each test has its own address.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { ManualClock } from "../../runtime/platform/core/clock";
import { captureLog } from "../support/capture-log";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../support/test-app";
import { rawRequest, type RawResponse } from "../support/raw-http";

/** Opens a socket from `localAddress`; the accepted protocol once open, or the HTTP status it was refused with. */
function upgrade(url: string, protocols: string[], localAddress: string): Promise<{ protocol: string } | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { localAddress });
    ws.once("open", () => {
      resolve({ protocol: ws.protocol });
      ws.terminate();
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.once("error", reject);
  });
}

/** 1,400 device-key-shaped guesses (8 characters, as the spec's device keys), `right` among them. */
const candidates = (right: string): string[] => {
  const list = Array.from({ length: 1400 }, (_, i) => `G${String(i).padStart(7, "0")}`);
  list[777] = right;
  return list;
};

describe("security: key guessing through every door", function () {
  this.timeout(120_000);
  let t: TestApp;
  let port: number;
  const captured = captureLog("warn");
  const clock = new ManualClock(Date.parse("2026-11-29T08:00:00Z"));
  const ws = () => `ws://127.0.0.1:${port}/ws`;
  const feed = () => `ws://127.0.0.1:${port}/ws/pipeline`;
  const get = (target: string, headers: Record<string, string>, localAddress: string): Promise<RawResponse> =>
    rawRequest(port, { method: "GET", target, headers, localAddress });
  const login = (username: string, password: string, localAddress?: string): Promise<RawResponse> =>
    rawRequest(port, {
      method: "POST",
      target: "/editor/auth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: "node-red-editor",
        grant_type: "password",
        scope: username === "admin" ? "*" : "",
        username,
        password,
      }).toString(),
      localAddress,
    });

  before(async () => {
    t = await startTestApp({
      nodeRed: true,
      clock,
      log: captured.log,
      settings: { auth: { ...testAuthSettings(), throttle: { max_failures: 5, window_seconds: 60, block_seconds: 30, max_block_seconds: 600 } } },
    });
    port = Number(new URL(t.baseUrl).port);
  });
  after(() => t.close());

  it("refuses 1,400 keys in one /ws or /ws/pipeline upgrade, the right one among them, and counts them", async () => {
    const from = "127.0.0.11";
    assert.equal(await upgrade(ws(), candidates(KEYS.display), from), 401);
    assert.equal(await upgrade(feed(), candidates(KEYS.caregiver), from), 401);
    assert.equal(await upgrade(ws(), ["G0000001"], from), 401);
    assert.equal(await upgrade(feed(), ["G0000002"], from), 401);
    // The fifth wrong try blocks the address.
    assert.equal(await upgrade(ws(), ["G0000003"], from), 401);
    assert.equal(await upgrade(ws(), [KEYS.webapp], from), 429, "a right key from a blocked address");
    // Anyone else still gets in.
    assert.deepEqual(await upgrade(ws(), [KEYS.webapp], "127.0.0.12"), { protocol: KEYS.webapp });
  });

  it("refuses a blocked address on every door, right keys too, before any key is looked at", async () => {
    const from = "127.0.0.13";
    for (let i = 0; i < 5; i++) await get("/api/v1/rooms", { "x-api-key": `wrong-key-${i}-xxxxxx` }, from);
    const doors: Array<[string, Promise<RawResponse | number | { protocol: string }>]> = [
      ["REST", get("/api/v1/rooms", { "x-api-key": KEYS.admin }, from)],
      ["REST without a key", get("/api/v1/rooms", {}, from)],
      ["/ws by protocol", upgrade(ws(), [KEYS.webapp], from)],
      ["/ws by query", upgrade(`${ws()}?api_key=${KEYS.webapp}`, [], from)],
      ["/ws/pipeline", upgrade(feed(), [KEYS.admin], from)],
      ["the editor's admin API", get("/editor/settings", { authorization: `Bearer ${KEYS.admin}` }, from)],
      ["the editor's login", login("admin", KEYS.admin, from)],
      [
        "/mcp",
        rawRequest(port, {
          method: "POST",
          target: "/mcp",
          headers: { "x-api-key": KEYS.mcp, accept: "application/json, text/event-stream", "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
          }),
          localAddress: from,
        }),
      ],
    ];
    for (const [door, answer] of doors) {
      const got = await answer;
      assert.equal(typeof got === "number" ? got : "status" in got ? got.status : "open", 429, door);
      if (typeof got === "object" && "status" in got) assert.match((got.json as { detail: string }).detail, /try again in \d+ s/, door);
    }
  });

  it("logs a blocked address's refusals at most once a minute, with the address", async () => {
    const from = "127.0.0.14";
    for (let i = 0; i < 5; i++) await get("/api/v1/rooms", { "x-api-key": `wrong-key-${i}-zzzzzz` }, from);
    for (let i = 0; i < 20; i++) assert.equal((await get("/api/v1/rooms", { "x-api-key": KEYS.admin }, from)).status, 429);
    for (let i = 0; i < 5; i++) assert.equal(await upgrade(ws(), [KEYS.webapp], from), 429);
    const told = captured.lines.filter((l) => l.client === from && /still trying/.test(String(l.msg)));
    assert.equal(told.length, 1, JSON.stringify(told));
  });

  it("takes one key per upgrade: the key alone, or beside `careflow` (accepted instead of the key); two are refused", async () => {
    const from = "127.0.0.15";
    assert.deepEqual(await upgrade(ws(), [KEYS.webapp], from), { protocol: KEYS.webapp });
    assert.deepEqual(await upgrade(ws(), ["careflow", KEYS.webapp], from), { protocol: "careflow" });
    assert.deepEqual(await upgrade(feed(), ["careflow", KEYS.caregiver], from), { protocol: "careflow" });
    assert.equal(await upgrade(ws(), [KEYS.webapp, KEYS.admin], from), 401);
  });

  it("does not let a valid key (anyone's) clear the count of wrong keys or editor passwords from an address", async () => {
    const from = "127.0.0.16";
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) {
      // A valid display key between every two guesses: it must buy no more guesses.
      assert.notEqual((await get("/api/v1/image/active", { "x-api-key": KEYS.display }, from)).status, 401);
      answers.push(
        i % 2 ? (await login("admin", `guess-${i}`, from)).status : (await get("/api/v1/rooms", { "x-api-key": `wrong-${i}-xxxxxxxx` }, from)).status,
      );
    }
    assert.deepEqual(answers, [401, 401, 401, 401, 401, 429]);
  });

  it("counts wrong editor Bearer tokens, and refuses a right one from a blocked address", async () => {
    const from = "127.0.0.17";
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) answers.push((await get("/editor/settings", { authorization: `Bearer guess-${i}-xxxxxxxx` }, from)).status);
    assert.deepEqual(answers, [401, 401, 401, 401, 401, 429]);
    assert.equal((await get("/editor/settings", { authorization: `Bearer ${KEYS.admin}` }, from)).status, 429);
    // Elsewhere the admin key and a login's session token work as before.
    assert.equal((await get("/editor/settings", { authorization: `Bearer ${KEYS.admin}` }, "127.0.0.18")).status, 200);
    const session = (await login("admin", KEYS.admin, "127.0.0.18")).json as { access_token: string };
    assert.equal((await get("/editor/settings", { authorization: `Bearer ${session.access_token}` }, "127.0.0.18")).status, 200);
  });

  it("shows the editor's diagnostics (Node version, OS, paths) to the admin only", async () => {
    const from = "127.0.0.19";
    const caregiverSession = ((await login("caregiver", KEYS.caregiver, from)).json as { access_token: string }).access_token;
    const adminSession = ((await login("admin", KEYS.admin, from)).json as { access_token: string }).access_token;
    for (const [who, token] of [
      ["caregiver key", KEYS.caregiver],
      ["caregiver session", caregiverSession],
    ]) {
      for (const target of ["/editor/diagnostics", "/editor/Diagnostics/", `/editor/diagnostics?access_token=${encodeURIComponent(token)}`]) {
        const headers: Record<string, string> = target.includes("access_token") ? {} : { authorization: `Bearer ${token}` };
        const res = await get(target, headers, from);
        assert.equal(res.status, 403, `${who} ${target}: ${res.body.slice(0, 200)}`);
        assert.doesNotMatch(res.body, /nodejs/);
      }
      // The caregiver still reads the flows.
      assert.equal((await get("/editor/flows", { authorization: `Bearer ${token}` }, from)).status, 200, who);
    }
    for (const token of [KEYS.admin, adminSession]) {
      const res = await get("/editor/diagnostics", { authorization: `Bearer ${token}` }, from);
      assert.equal(res.status, 200, res.body.slice(0, 200));
      assert.ok((res.json as { nodejs?: unknown }).nodejs);
    }
  });
});
