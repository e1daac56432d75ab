/**
 * `GET /metrics` over real HTTP (issue 46 §4): a rule run moves the run counter of its rule and
 * status, its step's duration and its alert's send are timed, the pool, lease, part and queue
 * gauges are there, and the text parses as the Prometheus exposition format. Only an admin key
 * or a `metrics` key reads it, and a `metrics` key reads nothing else. A second app in the same
 * process keeps its own numbers. On PostgreSQL too (CAREFLOW_TEST_DATABASE_URL).
 */
import assert from "node:assert/strict";
import { KEYS, METRICS_KEY, metricsKeySetting, startTestApp, testAuthSettings, type TestApp } from "../../../support/test-app";
import { eventually, importRule } from "../../../support/eventually";
import { parseExposition, type Exposition } from "../../../support/prom-text";

describe("GET /metrics", function () {
  this.timeout(60_000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      nodeRed: true,
      settings: { auth: { ...testAuthSettings(), api_keys: [...(testAuthSettings().api_keys ?? []), metricsKeySetting()] } },
    });
  });
  after(() => t?.close());

  const scrape = async (app: TestApp = t, key: string = METRICS_KEY): Promise<Exposition> => {
    const res = await app.request("GET", "/metrics", { key });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    return parseExposition(res.text);
  };

  it("counts a rule's run by rule and status, times its step and its alert's first send", async () => {
    const ruleId = await importRule(t, {
      rule: { name: "Bathroom long", trigger_type: "manual" },
      steps: [
        {
          label: "Tell the family",
          step_type: "notification",
          schema_version: 1,
          config: { alert_level: "warning", channels: ["pwa_popup_text"], message_template: "Rose is still in the bathroom" },
        },
      ],
    });
    const before = await scrape();
    assert.equal(before.value("careflow_runs_total", { rule_id: String(ruleId) }), undefined, "no run yet");
    const steps = (m: Exposition) => m.value("careflow_step_duration_seconds_count", { step_type: "notification", outcome: "success" }) ?? 0;
    const stepsBefore = steps(before);

    const exec = await t.post(`/api/v1/rules/${ruleId}/execute`, {});
    assert.equal(exec.status, 201, exec.text);
    const run = await eventually("the run to end", async () => {
      const r = (await t.get(`/api/v1/workflows/${exec.body.execution_id}`)).body;
      return ["completed", "failed"].includes(r.status) ? r : undefined;
    });
    assert.equal(run.status, "completed", JSON.stringify(run.errors));

    const after = await eventually("the run counted", async () => {
      const m = await scrape();
      return m.value("careflow_runs_total", { rule_id: String(ruleId), status: "completed" }) === 1 ? m : undefined;
    });
    assert.equal(steps(after), stepsBefore + 1, "the notification step's duration is a sample");
    assert.ok((after.value("careflow_step_duration_seconds_sum", { step_type: "notification", outcome: "success" }) ?? -1) >= 0);
    // Nobody's tablet is connected: the popup reached no one, and the send still finished.
    const sends = after.all("careflow_alert_send_seconds_count", { level: "warning" });
    assert.equal(
      sends.reduce((n, s) => n + s.value, 0),
      1,
      "the alert's first send is timed once",
    );
  });

  it("has the store pool, the leases, the parts and the queues", async () => {
    const m = await scrape();
    const pool = (state: string) => m.value("careflow_store_pool_connections", { state });
    assert.equal(pool("max"), t.app.ctx.dialect === "sqlite" ? 1 : 10);
    for (const state of ["used", "free", "pending"]) assert.ok((pool(state) ?? -1) >= 0, `pool ${state}`);
    // One instance holds every lease it runs a job under.
    assert.equal(m.value("careflow_lease_held", { lease: "media-sweep" }), 1);
    for (const lease of m.all("careflow_lease_held")) assert.equal(lease.value, 1, lease.labels.lease);
    // The device keys' devices are parts, each in exactly one state; the camera has not called yet.
    const camera = m.all("careflow_part_state", { part: "device:kitchen_cam" });
    assert.equal(camera.length, 4);
    assert.equal(camera.filter((s) => s.value === 1).length, 1);
    assert.equal(m.all("careflow_part_last_seen_timestamp_seconds", { part: "device:kitchen_cam" }).length, 0, "never heard from: no last contact");
    assert.ok(m.all("careflow_part_last_seen_timestamp_seconds", { kind: "database" }).length <= 1);
    assert.equal(m.value("careflow_queue_depth", { queue: "run_writes" }), 0);
    assert.equal(m.value("careflow_queue_depth", { queue: "scene_samples" }), 0);
  });

  it("declares every family with # TYPE, histograms with buckets up to +Inf, and the process's own metrics", async () => {
    const m = await scrape();
    assert.equal(m.types.get("careflow_runs_total"), "counter");
    for (const h of ["careflow_step_duration_seconds", "careflow_alert_send_seconds", "careflow_tracking_lag_seconds"])
      assert.equal(m.types.get(h), "histogram", h);
    for (const g of [
      "careflow_queue_depth",
      "careflow_part_state",
      "careflow_part_last_seen_timestamp_seconds",
      "careflow_lease_held",
      "careflow_store_pool_connections",
    ])
      assert.equal(m.types.get(g), "gauge", g);
    assert.equal(m.types.get("process_cpu_user_seconds_total"), "counter");
    for (const count of m.all("careflow_step_duration_seconds_count")) {
      const inf = m.value("careflow_step_duration_seconds_bucket", { ...count.labels, le: "+Inf" });
      assert.equal(inf, count.value, "the +Inf bucket holds every sample");
    }
  });

  it("is read with an admin or metrics key (also as a Bearer token); a metrics key reads nothing else", async () => {
    const none = await t.request("GET", "/metrics", { key: null });
    assert.equal(none.status, 401);
    assert.equal(typeof none.body.detail, "string");
    const caregiver = await t.request("GET", "/metrics", { key: KEYS.caregiver });
    assert.equal(caregiver.status, 403);
    assert.match(caregiver.body.detail, /may not GET \/metrics/);
    assert.equal((await t.request("GET", "/metrics", { key: KEYS.admin })).status, 200);
    const bearer = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_KEY}` } });
    assert.equal(bearer.status, 200, "Prometheus's authorization setting sends the key as a Bearer token");
    // A metrics key made while careflow runs, as an admin makes any key.
    const made = await t.post("/api/v1/admin/keys", { name: "prometheus", kind: "api", role: "metrics" });
    assert.equal(made.status, 201, made.text);
    assert.equal((await t.request("GET", "/metrics", { key: made.body.key })).status, 200);
    assert.equal((await t.request("GET", "/api/v1/rooms", { key: made.body.key })).status, 403);
    for (const path of ["/api/v1/rules", "/api/v1/admin/health/parts", "/api/v1/alerts"]) {
      const res = await t.request("GET", path, { key: METRICS_KEY });
      assert.equal(res.status, 403, path);
    }
  });

  it("keeps each app's numbers apart in one process", async () => {
    const other = await startTestApp({
      settings: { auth: { ...testAuthSettings(), api_keys: [...(testAuthSettings().api_keys ?? []), metricsKeySetting()] } },
    });
    try {
      const m = await scrape(other);
      assert.equal(m.all("careflow_runs_total").length, 0, "the first app's runs are not the second's");
      assert.ok((await scrape()).all("careflow_runs_total").length > 0, "and the first app still has them");
    } finally {
      await other.close();
    }
  });
});
