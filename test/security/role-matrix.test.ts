/**
 * Every route of the app × every kind of caller, against the spec's role table. The routes
 * come from the app's own route table, so a route added later is covered without anyone
 * remembering; the expectations are the spec's table written out here, not the code's.
 */
import assert from "node:assert/strict";
import { KEYS, METRICS_KEY, metricsKeySetting, startTestApp, testAuthSettings, type TestApp } from "../support/test-app";
import { appRoutes, concretePath, type RouteEntry } from "../support/route-table";
import { CALLERS, expected, type Caller } from "../support/spec-roles";

const keyOf = (caller: Caller): string | null =>
  caller === "none" ? null : caller === "wrong" ? "wrong-key-0123456789" : caller === "metrics" ? METRICS_KEY : KEYS[caller];

describe("security: every route × every kind of caller (role matrix from the route table)", function () {
  this.timeout(120_000);
  let t: TestApp;
  let routes: RouteEntry[];
  before(async () => {
    // Wrong keys are part of the matrix: the per-address throttle must not answer for the table.
    // Continuous tracking on (its /cts routes answer instead of cts.disabled), no broker needed.
    t = await startTestApp({
      nodeRed: true,
      settings: {
        auth: { ...testAuthSettings(), api_keys: [...(testAuthSettings().api_keys ?? []), metricsKeySetting()], throttle: { max_failures: 1_000_000 } },
        cts: { enabled: true, nats_url: "nats://127.0.0.1:9" },
      },
    });
    routes = appRoutes(t.app.server).filter((r) => r.method !== "HEAD");
  });
  after(() => t.close());

  it("reads a route table that covers the whole API", () => {
    const subjects = routes.map((r) => `${r.method} ${r.path}`);
    for (const known of [
      "GET /health",
      "GET /metrics",
      "POST /api/v1/rules",
      "POST /api/v1/rules/:id/execute",
      "POST /api/v1/alerts/:id/action",
      "GET /api/v1/image/active",
      "POST /api/v1/webhooks/:rule_id",
      "GET /api/v1/media/:object_name",
      "DELETE /api/v1/rooms/:id",
      "GET /api/v1/admin/webapp-link",
      "GET /api/v1/admin/webapp-link/qr.svg",
      "GET /api/v1/admin/webapp/tablets",
      "GET /api/v1/admin/cluster",
      "GET /api/v1/admin/keys",
      "POST /api/v1/admin/keys",
      "POST /api/v1/admin/keys/:id/rotate",
      "DELETE /api/v1/admin/keys/:id",
      "GET /api/v1/admin/audit",
      "GET /api/v1/admin/connections/hub",
      "PUT /api/v1/admin/connections/hub",
      "POST /api/v1/admin/connections/hub/test",
      "GET /api/v1/admin/connections/tracking",
      "GET /api/v1/admin/starter-rules",
      "POST /api/v1/admin/starter-rules",
      "POST /api/v1/admin/connections/tracking/test",
      "GET /api/v1/admin/health/parts",
      "GET /api/v1/admin/backups",
      "POST /api/v1/admin/backups",
      "GET /api/v1/admin/backups/:name",
      "GET /api/v1/backup-status",
      "GET /api/v1/persons/alert-profiles",
      "GET /api/v1/chat/bot",
      "GET /api/v1/chat/relatives",
      "PATCH /api/v1/chat/relatives/:chat_id",
      "DELETE /api/v1/chat/relatives/:chat_id",
      "POST /api/v1/chat/relatives/:chat_id/test",
      "GET /api/v1/chat/link-codes",
      "POST /api/v1/chat/link-codes",
      "DELETE /api/v1/chat/link-codes/:id",
      "GET /admin/app-info",
      "GET /household",
      "GET /household/:file",
    ]) {
      assert.ok(subjects.includes(known), `${known} missing from the route table`);
    }
    assert.ok(routes.length > 60, `only ${routes.length} routes`);
  });

  it("answers each route as the spec's role table says, for every caller", async () => {
    const failures: string[] = [];
    for (const route of routes) {
      const path = concretePath(route.path, "999999");
      for (const caller of CALLERS) {
        const want = expected(route, caller);
        const res = await t.request(route.method, path, { key: keyOf(caller), body: route.method === "GET" || route.method === "DELETE" ? undefined : {} });
        const got = res.status;
        const ok = want === "open" || want === "allow" ? got !== 401 && got !== 403 : got === want;
        if (!ok) failures.push(`${caller} ${route.method} ${route.path}: expected ${want}, got ${got} ${res.text.slice(0, 120)}`);
        if (got >= 400 && typeof res.body?.detail !== "string") failures.push(`${caller} ${route.method} ${route.path}: ${got} without a {"detail"} body`);
        // 503 with a detail is an answer: a backing service the household runs (the hub) is absent.
        if (got >= 500 && !(got === 503 && typeof res.body?.detail === "string"))
          failures.push(`${caller} ${route.method} ${route.path}: ${got} ${res.text.slice(0, 120)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
