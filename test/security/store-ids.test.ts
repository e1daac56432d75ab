/**
 * Ids no row can have (2^31 and beyond: PostgreSQL's `integer` stops at 2^31 - 1) in every
 * route's path, for every key that may call it, and in the query and body ids a caller sends:
 * a 404 or a 422 naming the field, never a 500 and never an error in the log, on both stores.
 * The route table is the app's own, so a new route is covered the day it is added.
 */
import assert from "node:assert/strict";
import { captureLog, type CapturedLog } from "../support/capture-log";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";
import { appRoutes, concretePath } from "../support/route-table";

const BEYOND = ["2147483648", "4294967296", "9007199254740993"];

describe("security: ids beyond the store's integer range", function () {
  this.timeout(120_000);
  let t: TestApp;
  let logs: CapturedLog;
  before(async () => {
    logs = captureLog("warn");
    t = await startTestApp({ log: logs.log });
  });
  after(() => t.close());

  const errorLines = () => logs.lines.filter((l) => Number(l.level) >= 50);

  it("answers a path id of 2^31 or more with a 4xx and a detail (404 for a numeric id) on every route, for every key that may call it", async () => {
    const routes = appRoutes(t.app.server).filter((r) => r.method !== "HEAD" && /:\w+/.test(r.path));
    assert.ok(routes.length > 50, `only ${routes.length} routes with a path parameter`);
    const failures: string[] = [];
    for (const r of routes)
      for (const id of BEYOND)
        for (const key of [KEYS.admin, KEYS.caregiver, KEYS.webapp]) {
          const path = concretePath(r.path, id);
          const res = await t.request(r.method, path, r.method === "GET" ? { key } : { key, body: {} });
          // 503: a part this test app does not run (the engine); a text id (a sensor's) may even name a new row.
          if (res.status >= 500 && res.status !== 503) failures.push(`${r.method} ${path} (${key}): ${res.status} ${res.text.slice(0, 120)}`);
          else if (res.status >= 400 && typeof res.body?.detail !== "string") failures.push(`${r.method} ${path} (${key}): ${res.status} without a detail`);
        }
    assert.deepEqual(failures, []);
    assert.deepEqual(errorLines(), []);
  });

  it("refuses query and body ids of 2^31 or more with 422 naming the field", async () => {
    const query = await t.get("/api/v1/workflows?rule_id=2147483648");
    assert.equal(query.status, 422, query.text);
    assert.match(query.body.detail, /rule_id/);
    const rule = (await t.post("/api/v1/rules", { name: "Ids", trigger_type: "manual" })).body.id;
    const dep = await t.post(`/api/v1/rules/${rule}/dependencies`, { depends_on_rule_id: 2147483648 });
    assert.equal(dep.status, 422, dep.text);
    assert.match(dep.body.detail, /depends_on_rule_id/);
    const answer = await t.request("POST", "/api/v1/interactive-responses", {
      key: KEYS.webapp,
      body: { execution_id: 2147483648, step_id: 1, channel: "pwa_popup_text", action: "dismiss" },
    });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.body.detail, /execution_id/);
    assert.deepEqual(errorLines(), []);
  });
});
