/**
 * The audit log of the household's changes (issue 43 §2), over real HTTP: who (the key's name)
 * created, changed and deleted people, rooms, sensors and rules; what changes nothing (a run, a
 * refused write) is not recorded. And the table of audited routes itself.
 */
import assert from "node:assert/strict";
import { auditedWrite } from "../../../../runtime/app/audit/audited-routes";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("audit log: who changed the household", function () {
  this.timeout(60_000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const lines = async (): Promise<string[]> => {
    const res = await t.get("/api/v1/admin/audit?limit=100");
    assert.equal(res.status, 200, res.text);
    return (res.body as Array<Record<string, string | null>>).map((e) => `${e.actor} ${e.action} ${e.target_type} ${e.target_id} ${e.target_name}`);
  };

  it("records people, rooms, sensors and rules made, changed and deleted, with the key's name, newest first", async () => {
    const room = await t.post("/api/v1/rooms", { name: "Kitchen" });
    assert.equal(room.status, 201, room.text);
    assert.equal((await t.request("PUT", `/api/v1/rooms/${room.body.id}`, { body: { name: "Big kitchen" } })).status, 200);
    assert.equal((await t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence" })).status, 201);
    const person = await t.post("/api/v1/persons", { display_name: "Rose" });
    assert.equal(person.status, 201, person.text);
    assert.equal((await t.request("PATCH", `/api/v1/persons/${person.body.person_id}`, { body: { notes: "likes tea" } })).status, 200);
    const rule = await t.post("/api/v1/rules", { name: "Morning check", trigger_type: "manual" });
    assert.equal(rule.status, 201, rule.text);
    const step = await t.post(`/api/v1/rules/${rule.body.id}/steps`, { step_type: "wait", label: "wait_1", config_json: { duration_minutes: 1 } });
    assert.equal(step.status, 201, step.text);
    assert.equal((await t.request("DELETE", `/api/v1/rules/${rule.body.id}`)).status, 204);
    assert.equal((await t.request("DELETE", `/api/v1/persons/${person.body.person_id}`)).status, 204);
    assert.equal((await t.request("DELETE", `/api/v1/rooms/${room.body.id}`)).status, 204);

    assert.deepEqual(await lines(), [
      `test admin delete room ${room.body.id} null`,
      `test admin delete person rose null`,
      `test admin delete rule ${rule.body.id} null`,
      `test admin update rule ${rule.body.id} null`,
      `test admin create rule ${rule.body.id} Morning check`,
      `test admin update person rose Rose`,
      `test admin create person rose Rose`,
      `test admin create sensor hall_pir hall_pir`,
      `test admin update room ${room.body.id} Big kitchen`,
      `test admin create room ${room.body.id} Kitchen`,
    ]);
  });

  it("records nothing for a refused write, a run or another caller's refused attempt", async () => {
    const before = (await lines()).length;
    assert.equal((await t.post("/api/v1/rooms", { name: "" })).status, 422);
    assert.equal((await t.post("/api/v1/rooms", { name: "attic" }, KEYS.caregiver)).status, 403);
    const rule = await t.post("/api/v1/rules", { name: "Run me", trigger_type: "manual" });
    await t.post(`/api/v1/rules/${rule.body.id}/execute`, {});
    assert.equal((await lines()).length, before + 1);
  });

  it("reads each audited route as its thing, action and id", () => {
    const cases: Array<[string, string, string | null]> = [
      ["POST /rooms", "create room", null],
      ["PUT /rooms/3", "update room", "3"],
      ["DELETE /rooms/3", "delete room", "3"],
      ["DELETE /rules/4/steps/9", "update rule", "4"],
      ["POST /rules/import", "create rule", null],
      ["POST /persons/rose/enroll", "update person", "rose"],
      ["DELETE /persons/rose%20b", "delete person", "rose b"],
      ["POST /knowledge/documents/7/approve", "update knowledge document", "7"],
      ["PATCH /quizzes/2/questions/1", "update quiz", "2"],
      ["POST /ha/sync/rooms", "update room", null],
    ];
    for (const [subject, want, id] of cases) {
      const [method, path] = subject.split(" ");
      const w = auditedWrite(method, path);
      assert.ok(w, subject);
      assert.equal(`${w.action} ${w.target_type}`, want, subject);
      assert.equal(w.target_id, id, subject);
    }
    for (const subject of [
      "GET /rooms",
      "POST /rules/4/execute",
      "POST /rules/4/rehearse",
      "POST /rules/draft-from-words",
      "POST /rules/import/preview",
      "POST /quizzes/suggest",
      "POST /alerts/3/action",
      "POST /admin/keys",
      "PUT /persons",
    ]) {
      const [method, path] = subject.split(" ");
      assert.equal(auditedWrite(method, path), null, subject);
    }
  });
});
