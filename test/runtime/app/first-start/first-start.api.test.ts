/**
 * The first start of a real household (issue 43 §3): the one-time set-up link (a managed admin
 * key, revoked when the set-up is finished) and the starter rules made for this household's
 * person, rooms and sensors from the demo's examples.
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";
import { firstStartToken, SETUP_KEY_NAME } from "../../../../runtime/app/first-start/setup-link";

describe("first start: the set-up link and the starter rules", function () {
  this.timeout(60_000);
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ nodeRed: true });
  });
  after(() => t.close());

  it("an empty household gets a set-up link that signs in as admin until the page revokes it; a restart rotates it", async () => {
    const first = await firstStartToken(t.app.ctx);
    assert.ok(first);
    assert.equal((await t.get("/api/v1/admin/keys", first)).status, 200);
    // A restart before the set-up is finished: a new link, the old one refused.
    const second = await firstStartToken(t.app.ctx);
    assert.ok(second && second !== first);
    assert.equal((await t.get("/api/v1/admin/keys", first)).status, 401);
    const keys = (await t.get("/api/v1/admin/keys", second)).body as Array<{ id: number; name: string; revoked: boolean }>;
    const own = keys.find((k) => k.name === SETUP_KEY_NAME && !k.revoked)!;
    assert.equal((await t.request("DELETE", `/api/v1/admin/keys/${own.id}`, { key: second })).status, 204);
    assert.equal((await t.get("/api/v1/rooms", second)).status, 401);
    // Finished, and the household no longer empty: no link.
    assert.equal((await t.post("/api/v1/rooms", { name: "Kitchen" })).status, 201);
    assert.equal(await firstStartToken(t.app.ctx), null);
  });

  it("lists the demo's examples as starter rules", async () => {
    const res = await t.get("/api/v1/admin/starter-rules");
    assert.equal(res.status, 200, res.text);
    const names = (res.body as Array<{ name: string; room: string }>).map((r) => `${r.name}:${r.room}`);
    for (const n of ["bathroom-check:bathroom", "morning-medication:bedroom", "night-wandering:hallway"]) assert.ok(names.includes(n), names.join(","));
  });

  it("makes the chosen ones for this household's person, rooms and sensors", async () => {
    assert.equal((await t.post("/api/v1/persons", { person_id: "mum", display_name: "Margaret" })).status, 201);
    const bath = await t.post("/api/v1/rooms", { name: "Downstairs Bathroom" });
    assert.equal(bath.status, 201, bath.text);
    const hall = await t.post("/api/v1/rooms", { name: "Hallway" });
    const s1 = await t.post("/api/v1/sensors", { sensor_id: "binary_sensor.wc_motion", name: "WC", sensor_type: "presence", room_id: bath.body.id });
    assert.equal(s1.status, 201, s1.text);
    await t.post("/api/v1/sensors", { sensor_id: "binary_sensor.hall", name: "Hall", sensor_type: "presence", room_id: hall.body.id });
    const made = await t.post("/api/v1/admin/starter-rules", { rules: ["bathroom-check", "night-wandering"] });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.rules.length, 2);
    const rule = await t.get(`/api/v1/rules/${made.body.rules[0].rule_id}/export`);
    assert.equal(rule.status, 200, rule.text);
    const text = JSON.stringify(rule.body);
    assert.match(text, /binary_sensor\.wc_motion/);
    assert.match(text, /Margaret may need help/);
    assert.doesNotMatch(text, /Rose|binary_sensor\.bathroom_presence/);
    // The same again: the rule exists, 409, nothing half made.
    assert.equal((await t.post("/api/v1/admin/starter-rules", { rules: ["bathroom-check"] })).status, 409);
    // A new rule asked with a taken one: refused whole, the new one not made either.
    const before = (await t.get("/api/v1/rules")).body.length as number;
    assert.ok(before >= 2);
    const mixed = await t.post("/api/v1/admin/starter-rules", {
      rules: ["morning-medication", "bathroom-check"],
      sensors: { "morning-medication": "binary_sensor.hall" },
    });
    assert.equal(mixed.status, 409, mixed.text);
    assert.equal((await t.get("/api/v1/rules")).body.length, before, "nothing half made");
  });

  it("refuses what it cannot make, naming the field; a caregiver may not make rules", async () => {
    const bad = async (body: unknown, field: RegExp) => {
      const res = await t.post("/api/v1/admin/starter-rules", body);
      assert.equal(res.status, 422, res.text);
      assert.match(res.body.detail, field);
    };
    await bad({}, /^rules:/);
    await bad({ rules: ["nope"] }, /^rules\.0:/);
    await bad({ rules: ["morning-medication"] }, /^sensors\.morning-medication:/);
    await bad({ rules: ["bathroom-check"], person_id: "ghost" }, /^person_id:/);
    await bad({ rules: ["bathroom-check"], sensors: { "bathroom-check": "nope" } }, /^sensors\.bathroom-check:/);
    assert.equal((await t.post("/api/v1/admin/starter-rules", { rules: ["bathroom-check"] }, KEYS.caregiver)).status, 403);
  });
});
