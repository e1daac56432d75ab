import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("operations endpoints", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      settings: {
        app: { timezone: "Europe/Berlin" },
        notifications: { webhook: { url: "http://127.0.0.1:9/hook", headers: { Authorization: "Bearer hook-token" } } },
        llm: { models: [{ id: "m1", api_type: "openai", base_url: "http://127.0.0.1:8000/v1", model: "x", api_key: "sk-secret", capabilities: ["text"] }] },
      },
    });
  });
  after(() => t.close());

  it("GET /health needs no key and reports the database", async () => {
    const res = await t.get("/health", null);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "ok");
    assert.equal(res.body.database.ok, true);
    assert.equal(res.body.node_red.state, "disabled");
  });

  it("GET /api/v1/admin/app-info needs a key, then gives name, version and timezone", async () => {
    assert.equal((await t.get("/api/v1/admin/app-info", null)).status, 401);
    assert.equal((await t.get("/admin/app-info", null)).status, 404, "no unauthenticated twin at the root");
    const res = await t.get("/api/v1/admin/app-info", KEYS.caregiver);
    assert.equal(res.status, 200);
    assert.equal(res.body.timezone, "Europe/Berlin");
    assert.equal(res.body.name, "careflow");
    assert.match(res.body.version, /^\d+\.\d+\.\d+/);
  });

  it("GET /api/v1/admin/webapp-link gives one set-up link per webapp key, the key in the fragment", async () => {
    assert.equal((await t.get("/api/v1/admin/webapp-link", null)).status, 401);
    assert.equal((await t.get("/api/v1/admin/webapp-link", KEYS.webapp)).status, 403);
    const res = await t.get("/api/v1/admin/webapp-link");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.links, [{ key_name: "test web app", url: `${t.baseUrl}/app/#key=${KEYS.webapp}` }]);
    const page = await fetch(`${t.baseUrl}/app`);
    assert.equal(page.status, 200, "/app redirects to the page at /app/");
    assert.equal(page.url, `${t.baseUrl}/app/`);
    assert.match(await page.text(), /<script src="\/app\/app.js"><\/script>/);
    assert.equal((await fetch(`${t.baseUrl}/app/sw.js`)).headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal((await fetch(`${t.baseUrl}/app/nothing.js`)).status, 404);
    // docs/webapp.md shows its screenshots from /docs/images/.
    assert.equal((await fetch(`${t.baseUrl}/docs/images/webapp-idle.png`)).headers.get("content-type"), "image/png");
  });

  it("GET /api/v1/admin/config shows effective settings with every secret redacted", async () => {
    const res = await t.get("/api/v1/admin/config");
    assert.equal(res.status, 200);
    assert.equal(res.body.app.timezone, "Europe/Berlin");
    assert.equal(res.body.image.refresh_window_minutes, 60, "defaults are filled in");
    const text = JSON.stringify(res.body);
    for (const secret of [KEYS.admin, KEYS.caregiver, KEYS.camera, "sk-secret", "hook-token"]) {
      assert.ok(!text.includes(secret), `${secret} leaked`);
    }
    assert.equal(res.body.auth.api_keys[0].key, "***");
    assert.equal(res.body.auth.api_keys[0].name, "test admin");
    assert.equal(res.body.notifications.webhook.headers.Authorization, "***");
  });
});
