/**
 * The spec's alert profile presets (Senior, Adult, Presence only; anything else Custom):
 * `GET /persons/alert-profiles` lists them for a caregiver too, a person's answer names the
 * preset its `cts_alert_config` is, and a taken person id is said beside the field it came from.
 */
import assert from "node:assert/strict";
import { ALERT_PRESETS, presetOf } from "../../../runtime/household/persons/alert-presets";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";

const ALL = ["pacing", "room_revisit_rate", "bathroom_dwell_anomaly", "sundowning_index", "nighttime_movement", "stillness_anomaly", "absence"];

describe("persons: alert profile presets", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("are the spec's table", () => {
    assert.deepEqual(
      ALERT_PRESETS.map((p) => [p.id, p.label, [...p.enabled_kinds].sort(), p.min_severity]),
      [
        ["senior", "Senior", [...ALL].sort(), "info"],
        ["adult", "Adult", ["absence", "nighttime_movement", "stillness_anomaly"], "info"],
        ["presence_only", "Presence only", ["absence"], "info"],
      ],
    );
    assert.equal(presetOf(null), "senior", "null is every kind at info");
    assert.equal(presetOf({ enabled_kinds: ["stillness_anomaly", "absence", "nighttime_movement"], min_severity: "info" }), "adult", "in any order");
    assert.equal(presetOf({ enabled_kinds: ["absence"], min_severity: "warning" }), "custom", "another severity");
    assert.equal(presetOf({ enabled_kinds: [], min_severity: "info" }), "custom");
  });

  it("GET /persons/alert-profiles lists them, with the kinds and severities a custom one picks from", async () => {
    const res = await t.get("/api/v1/persons/alert-profiles", KEYS.caregiver);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.presets.map((p: { id: string }) => p.id),
      ["senior", "adult", "presence_only"],
    );
    assert.deepEqual(res.body.kinds, ALL);
    assert.deepEqual(res.body.severities, ["info", "warning", "emergency"]);
  });

  it("a person's answer names its preset", async () => {
    const made = await t.post("/api/v1/persons", { display_name: "Tom", cts_alert_config: { enabled_kinds: ["absence"], min_severity: "info" } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.alert_profile, "presence_only");
    const none = await t.post("/api/v1/persons", { display_name: "Rose" });
    assert.equal(none.body.alert_profile, "senior");
    const patched = await t.request("PATCH", "/api/v1/persons/tom", { body: { cts_alert_config: { enabled_kinds: ["pacing"], min_severity: "emergency" } } });
    assert.equal(patched.body.alert_profile, "custom");
    assert.equal((await t.get("/api/v1/persons")).body.find((p: { person_id: string }) => p.person_id === "tom").alert_profile, "custom");
  });

  it("a taken person id is said beside the field it came from", async () => {
    const byName = await t.post("/api/v1/persons", { display_name: "Tom" });
    assert.equal(byName.status, 409);
    assert.match(byName.body.detail, /^display_name: another member's name already gives the person_id 'tom'/);
    const byId = await t.post("/api/v1/persons", { person_id: "tom", display_name: "Thomas" });
    assert.equal(byId.status, 409);
    assert.match(byId.body.detail, /^person_id: a person with person_id 'tom' already exists/);
  });
});
