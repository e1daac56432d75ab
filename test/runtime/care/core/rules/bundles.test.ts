import assert from "node:assert/strict";
import { DEVICES_TAB_ID } from "../../../../../runtime/household/devices/devices-tab";
import YAML from "yaml";
import { exampleBundleFiles, readBundleFile } from "../../../../../runtime/app/demo/example-rules";
import { seedDemoHousehold } from "../../../../../runtime/app/demo/demo-household";
import { startTestApp, type TestApp } from "../../../../support/test-app";

const bundle = (over: Record<string, unknown> = {}) => ({
  schema_version: 1,
  rule: { name: "Imported", trigger_type: "manual", cool_off_minutes: 5 },
  steps: [
    { label: "check", step_type: "condition", schema_version: 1, config: { expression: "occupancy_duration_minutes > 1" } },
    { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 2 } },
  ],
  edges: [{ source_label: "check", source_port: "true", target_label: "pause" }],
  ...over,
});

describe("rule bundles", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
    await seedDemoHousehold(t.app.ctx);
  });
  afterEach(() => t.close());

  const ruleCount = async () => (await t.get("/api/v1/rules")).body.length;

  it("imports every example bundle of flows/ cleanly into the demo household", async () => {
    const files = exampleBundleFiles();
    assert.ok(files.length >= 3);
    for (const file of files) {
      const preview = await t.post("/api/v1/rules/import/preview", readBundleFile(file));
      assert.equal(preview.body.status, "ok", `${file}: ${JSON.stringify(preview.body)}`);
      const res = await t.post("/api/v1/rules/import", readBundleFile(file));
      assert.equal(res.status, 201, res.text);
      assert.equal(typeof res.body.rule_id, "number");
    }
    assert.equal(await ruleCount(), files.length);
  });

  it("export → import → export is stable (ids aside)", async () => {
    const first = await t.post("/api/v1/rules/import", readBundleFile(exampleBundleFiles()[0]));
    const exported = (await t.get(`/api/v1/rules/${first.body.rule_id}/export`)).body;
    await t.request("DELETE", `/api/v1/rules/${first.body.rule_id}`);
    const again = await t.post("/api/v1/rules/import", exported);
    assert.equal(again.status, 201, again.text);
    const reexported = (await t.get(`/api/v1/rules/${again.body.rule_id}/export`)).body;
    const strip = (b: Record<string, unknown>) => ({ ...b, exported_at: undefined });
    assert.deepEqual(strip(reexported), strip(exported));
  });

  it("exports YAML with ?format=yaml or an Accept header, and imports YAML by content type", async () => {
    const { body: created } = await t.post("/api/v1/rules/import", bundle());
    const viaQuery = await t.get(`/api/v1/rules/${created.rule_id}/export?format=yaml`);
    assert.match(viaQuery.headers.get("content-type") ?? "", /yaml/);
    const viaAccept = await t.request("GET", `/api/v1/rules/${created.rule_id}/export`, { headers: { accept: "application/yaml" } });
    assert.equal(YAML.parse(viaAccept.text).rule.name, "Imported");
    await t.request("DELETE", `/api/v1/rules/${created.rule_id}`);
    const res = await t.request("POST", "/api/v1/rules/import", { rawBody: viaQuery.text, headers: { "content-type": "application/yaml" } });
    assert.equal(res.status, 201, res.text);
    const rule = (await t.get(`/api/v1/rules/${res.body.rule_id}`)).body;
    assert.deepEqual(
      rule.steps.map((s: { label: string }) => s.label),
      ["check", "pause"],
    );
    assert.equal(rule.edges[0].source_port, "true");
  });

  it("preview writes nothing and reports each step", async () => {
    const res = await t.post("/api/v1/rules/import/preview", bundle());
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "ok");
    assert.equal(res.body.rule_id, null);
    assert.deepEqual(
      res.body.steps.map((s: { status: string }) => s.status),
      ["ok", "ok"],
    );
    assert.equal(await ruleCount(), 0);
  });

  it("migrates an older step config version for real on commit", async () => {
    const old = bundle({ steps: [{ label: "pause", step_type: "wait", schema_version: 1, config: { minutes: 9 } }], edges: [] });
    (old.steps as Array<Record<string, unknown>>)[0].schema_version = 1;
    const spec = (await t.get("/api/v1/pipeline/step-types")).body.find((s: { type_name: string }) => s.type_name === "wait");
    assert.equal(spec.schema_version, 2, "wait is at config version 2");
    const preview = await t.post("/api/v1/rules/import/preview", old);
    assert.equal(preview.body.steps[0].status, "migrated");
    const res = await t.post("/api/v1/rules/import", old);
    assert.equal(res.status, 201, res.text);
    const step = (await t.get(`/api/v1/rules/${res.body.rule_id}/steps`)).body[0];
    assert.equal(step.config_json.duration_minutes, 9, "minutes became duration_minutes");
    const node = JSON.parse((await t.app.ctx.db("flow_nodes").where({ type: "care-wait" }).first()).json);
    assert.equal(node.config_version, 2);
  });

  it("reports a newer step config version as a warning", async () => {
    const res = await t.post(
      "/api/v1/rules/import/preview",
      bundle({ steps: [{ label: "pause", step_type: "wait", schema_version: 9, config: { duration_minutes: 1 } }], edges: [] }),
    );
    assert.equal(res.body.steps[0].status, "warning");
    assert.equal(res.body.status, "warning");
  });

  it("skips an edge to a missing label with a warning and a suggestion", async () => {
    const res = await t.post("/api/v1/rules/import", bundle({ edges: [{ source_label: "check", source_port: "true", target_label: "paus" }] }));
    assert.equal(res.status, 201, res.text);
    assert.ok(res.body.warnings.some((w: string) => /no step is labelled 'paus'; did you mean 'pause'\?/.test(w)));
    assert.deepEqual((await t.get(`/api/v1/rules/${res.body.rule_id}/edges`)).body, []);
  });

  it("skips an unknown dependency with a warning, and links a known one", async () => {
    await t.post("/api/v1/rules", { name: "Breakfast", trigger_type: "manual" });
    const res = await t.post("/api/v1/rules/import", bundle({ dependencies: [{ parent_rule_name: "Breakfast" }, { parent_rule_name: "Lunch" }] }));
    assert.equal(res.status, 201, res.text);
    assert.ok(res.body.warnings.some((w: string) => w.includes("'Lunch'")));
    assert.equal((await t.get(`/api/v1/rules/${res.body.rule_id}/dependencies`)).body.length, 1);
  });

  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    ["an unknown step type", { steps: [{ label: "x", step_type: "teleport", config: {} }], edges: [] }, /unknown step type 'teleport'/],
    ["a bad step config", { steps: [{ label: "x", step_type: "wait", config: { duration_minutes: -1 } }], edges: [] }, /duration_minutes/],
    [
      "a cron that does not parse",
      { rule: { name: "C", trigger_type: "cron", primary_sensor_ref: { kind: "sensor", label: "kitchen_cam" }, schedule_cron: "every day" } },
      /schedule_cron: not a valid cron/,
    ],
    [
      "an unknown primary sensor",
      { rule: { name: "S", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "kitchen_camm" } } },
      /did you mean 'kitchen_cam'/,
    ],
    [
      "a cycle",
      {
        edges: [
          { source_label: "check", source_port: "true", target_label: "pause" },
          { source_label: "pause", source_port: "main", target_label: "check" },
        ],
      },
      /cycle/,
    ],
    ["a bad port", { edges: [{ source_label: "pause", source_port: "true", target_label: "check" }] }, /has no port 'true'/],
    ["a newer bundle format", { schema_version: 2 }, /newer than this app reads/],
  ];
  for (const [what, over, detail] of refused) {
    it(`refuses ${what} with 422 and writes nothing`, async () => {
      const preview = await t.post("/api/v1/rules/import/preview", bundle(over));
      assert.equal(preview.body.status, "error");
      const res = await t.post("/api/v1/rules/import", bundle(over));
      assert.equal(res.status, 422, res.text);
      assert.match(res.body.detail, detail);
      assert.equal(res.body.report.status, "error");
      assert.equal(await ruleCount(), 0);
      const rows: Array<{ id: string; z: string | null }> = await t.app.ctx.db("flow_nodes").select("id", "z");
      assert.deepEqual(
        rows.filter((n) => n.id !== DEVICES_TAB_ID && n.z !== DEVICES_TAB_ID),
        [],
      );
    });
  }

  it("answers 409 when a rule of that name exists, and 422 for a body that is not a bundle", async () => {
    await t.post("/api/v1/rules", { name: "Imported", trigger_type: "manual" });
    assert.equal((await t.post("/api/v1/rules/import", bundle())).status, 409);
    const bad = await t.post("/api/v1/rules/import", { rule: "x" });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /^bundle: /);
    const badYaml = await t.request("POST", "/api/v1/rules/import", { rawBody: "rule: [unclosed", headers: { "content-type": "application/yaml" } });
    assert.equal(badYaml.status, 422);
  });
});
