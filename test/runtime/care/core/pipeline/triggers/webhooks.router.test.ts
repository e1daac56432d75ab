import assert from "node:assert/strict";
import { secretMatches } from "../../../../../../runtime/care/core/pipeline/triggers/webhooks.router";
import { KEYS, startTestApp, type TestApp } from "../../../../../support/test-app";
import { FakeFirer } from "./trigger-fixture";

describe("webhooks: POST /webhooks/{rule_id} and generate-secret", () => {
  let t: TestApp;
  let firer: FakeFirer;
  let hook: number;
  let secret: string;

  const call = (ruleId: number | string, opts: { secret?: string; body?: unknown; rawBody?: string; key?: string } = {}) =>
    t.request("POST", `/api/v1/webhooks/${ruleId}`, {
      key: opts.key ?? null,
      headers: {
        ...(opts.secret !== undefined ? { "x-webhook-secret": opts.secret } : {}),
        ...(opts.rawBody !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: opts.body,
      rawBody: opts.rawBody,
    });
  const generate = async (ruleId: number, key: string | null = KEYS.admin) => t.request("POST", `/api/v1/webhooks/${ruleId}/generate-secret`, { key });

  // The app's context is built once (its firer is the engine's); this suite puts a fake in its place.
  const useFirer = (f: FakeFirer | undefined) => Object.defineProperty(t.app.ctx, "firer", { value: f, configurable: true, writable: true });

  before(async () => {
    t = await startTestApp();
    firer = new FakeFirer();
    useFirer(firer);
    const room = (await t.post("/api/v1/rooms", { name: "Hall" })).body.id;
    await t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence", room_id: room });
    hook = (await t.post("/api/v1/rules", { name: "Doorbell", trigger_type: "webhook", primary_sensor_id: "hall_pir" })).body.id;
    const res = await generate(hook);
    assert.equal(res.status, 200, res.text);
    secret = res.body.secret;
  });
  after(() => t.close());
  beforeEach(() => {
    firer.calls.length = 0;
    firer.answer = () => ({ execution_id: 41 });
    useFirer(firer);
  });

  it("generate-secret answers a new secret (admin only) and the rule shows it was set", async () => {
    assert.match(secret, /^[A-Za-z0-9_-]{32}$/);
    assert.equal((await generate(hook, KEYS.caregiver)).status, 403);
    assert.equal((await generate(hook, null)).status, 401);
    assert.equal((await generate(9999)).status, 404);
    const rule = await t.get(`/api/v1/rules/${hook}`);
    assert.equal(rule.body.webhook_config.secret, secret);
  });

  it("fires the rule with the right secret and no API key: the JSON body is trigger_input and webhook_payload", async () => {
    const res = await call(hook, { secret, body: { visitor: "postman", nested: { a: [1, 2] } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { execution_id: 41 });
    assert.equal(firer.calls.length, 1);
    const [req] = firer.calls;
    assert.equal(req.rule_id, hook);
    assert.deepEqual(req.trigger_input, { visitor: "postman", nested: { a: [1, 2] } });
    assert.deepEqual(req.trigger, {
      trigger_type: "webhook",
      sensor_id: "hall_pir",
      room_name: "Hall",
      media_paths: [],
      media_type: null,
      webhook_payload: { visitor: "postman", nested: { a: [1, 2] } },
      occupancy_duration_minutes: null,
    });
    assert.equal(req.skip_gates, undefined);
  });

  it("an empty body is an empty payload", async () => {
    const res = await call(hook, { secret });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(firer.calls[0].trigger_input, {});
  });

  it("answers execution_id null with the reason when the gates hold the rule", async () => {
    firer.answer = () => ({ execution_id: null, reason: "cool-off: last completed run at ..." });
    const res = await call(hook, { secret, body: {} });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { execution_id: null, reason: "cool-off: last completed run at ..." });
  });

  it("missing secret 401, wrong secret or unknown rule 403 alike; nothing fires", async () => {
    const missing = await call(hook, { body: {} });
    assert.equal(missing.status, 401);
    assert.match(missing.body.detail, /X-Webhook-Secret/);
    assert.equal((await call(hook, { secret: "" })).status, 401);
    const wrong = await call(hook, { secret: `${secret}x` });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.detail, "Webhook secret does not match");
    assert.equal((await call(hook, { secret: secret.slice(0, 8) })).status, 403);
    // Rule ids cannot be listed without a secret: an unknown rule answers like a wrong secret.
    const unknown = await call(9999, { secret });
    assert.equal(unknown.status, 403);
    assert.equal(unknown.body.detail, "Webhook secret does not match");
    assert.equal((await call("abc", { secret })).status, 403);
    assert.equal((await call(hook, { key: KEYS.admin })).status, 401, "an API key is not a webhook secret");
    assert.equal(firer.calls.length, 0);
  });

  it("a rule without a secret refuses every secret", async () => {
    const bare = (await t.post("/api/v1/rules", { name: "No secret yet", trigger_type: "webhook" })).body.id;
    assert.equal((await call(bare, { secret: "anything" })).status, 403);
    assert.equal(firer.calls.length, 0);
  });

  it("a body that is not a JSON object is 422, but only after the secret matched", async () => {
    assert.equal((await call(hook, { secret: "wrong", rawBody: "{not json" })).status, 403);
    const bad = await call(hook, { secret, rawBody: "{not json" });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /not valid JSON/);
    const list = await call(hook, { secret, body: [1, 2] });
    assert.equal(list.status, 422);
    assert.equal(list.body.detail, "body: must be a JSON object");
    assert.equal(firer.calls.length, 0);
  });

  it("rotating the secret retires the old one at once", async () => {
    const old = secret;
    const res = await generate(hook);
    secret = res.body.secret;
    assert.notEqual(secret, old);
    assert.equal((await call(hook, { secret: old })).status, 403);
    assert.equal((await call(hook, { secret })).status, 200);
    assert.equal(firer.calls.length, 1);
  });

  it("a rule that is not a webhook rule, or is disabled, is 409", async () => {
    const manual = (await t.post("/api/v1/rules", { name: "Manual", trigger_type: "manual" })).body.id;
    const s = (await generate(manual)).body.secret;
    const notHook = await call(manual, { secret: s });
    assert.equal(notHook.status, 409);
    assert.equal(notHook.body.detail, `Rule ${manual} is not a webhook rule (trigger_type 'manual')`);
    await t.request("PUT", `/api/v1/rules/${hook}`, { body: { enabled: false } });
    const disabled = await call(hook, { secret });
    assert.equal(disabled.status, 409);
    assert.equal(disabled.body.detail, `Rule ${hook} is disabled`);
    await t.request("PUT", `/api/v1/rules/${hook}`, { body: { enabled: true } });
    assert.equal(firer.calls.length, 0);
  });

  it("answers 503 while no engine is running", async () => {
    useFirer(undefined);
    const res = await call(hook, { secret });
    assert.equal(res.status, 503);
    assert.equal(res.body.detail, "The rules engine is not running");
  });

  it("other methods on the webhook path still need an API key", async () => {
    assert.equal((await t.request("GET", `/api/v1/webhooks/${hook}`, { key: null })).status, 401);
  });

  it("compares secrets in constant time over digests, never matching an empty or absent secret", () => {
    assert.equal(secretMatches("abc", "abc"), true);
    assert.equal(secretMatches("abc", "abd"), false);
    assert.equal(secretMatches("abc", "abcd"), false);
    assert.equal(secretMatches("", ""), false);
    assert.equal(secretMatches("", null), false);
  });
});
