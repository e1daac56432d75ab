/**
 * Guessing keys and editor passwords is slowed per client address, never for everyone:
 * another address (the admin's own) keeps working, and nothing answers 500.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../runtime/platform/core/clock";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../support/test-app";
import { rawRequest, type RawResponse } from "../support/raw-http";

const ATTACKER = "127.0.0.2";

describe("security: per-address throttle for wrong keys and editor logins", function () {
  this.timeout(60_000);
  let t: TestApp;
  let port: number;
  const clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
  const get = (key: string, localAddress?: string): Promise<RawResponse> =>
    rawRequest(port, { method: "GET", target: "/api/v1/rooms", headers: { "x-api-key": key }, localAddress });
  const login = (password: string, localAddress?: string): Promise<RawResponse> =>
    rawRequest(port, {
      method: "POST",
      target: "/editor/auth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: "node-red-editor", grant_type: "password", scope: "*", username: "admin", password }).toString(),
      localAddress,
    });

  before(async () => {
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: { auth: { ...testAuthSettings(), throttle: { max_failures: 5, window_seconds: 60, block_seconds: 30, max_block_seconds: 600 } } },
    });
    port = Number(new URL(t.baseUrl).port);
  });
  after(() => t.close());

  it("answers wrong REST keys 401, then 429 with Retry-After for that address only", async () => {
    for (let i = 0; i < 5; i++) assert.equal((await get(`wrong-key-${i}-xxxxxx`, ATTACKER)).status, 401);
    const blocked = await get("wrong-key-again-xxxxx", ATTACKER);
    assert.equal(blocked.status, 429);
    assert.equal(blocked.headers["retry-after"], "30");
    assert.match((blocked.json as { detail: string }).detail, /try again in 30 s/);
    // While blocked, a right key from that address is refused too: guessing learns nothing.
    assert.equal((await get(KEYS.admin, ATTACKER)).status, 429);
    // Everyone else is unaffected.
    assert.equal((await get(KEYS.caregiver)).status, 200);
  });

  it("lets the address try again once the block is over, and doubles the next block", async () => {
    clock.advance(31_000);
    assert.equal((await get(KEYS.admin, ATTACKER)).status, 200);
    for (let i = 0; i < 5; i++) await get(`wrong-key-${i}-yyyyyy`, ATTACKER);
    const blocked = await get(KEYS.admin, ATTACKER);
    assert.equal(blocked.status, 429);
    assert.equal(blocked.headers["retry-after"], "60");
    clock.advance(61_000);
  });

  it("never locks the admin out of the editor from another address, and never answers 500", async () => {
    const answers: number[] = [];
    for (let i = 0; i < 8; i++) answers.push((await login(`guess-${i}`, ATTACKER)).status);
    assert.deepEqual(answers, [401, 401, 401, 401, 401, 429, 429, 429]);
    const wrong = await login("guess-x", "127.0.0.3");
    assert.equal(wrong.status, 401);
    assert.equal(typeof (wrong.json as { detail: string }).detail, "string");
    const ok = await login(KEYS.admin);
    assert.equal(ok.status, 200, ok.body);
    assert.equal(typeof (ok.json as { access_token: string }).access_token, "string");
  });
});
