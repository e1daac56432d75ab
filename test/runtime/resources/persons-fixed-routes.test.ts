/** `/persons/enrolled` and `/persons/locations` are routes of their own, never taken for a person's id. */
import assert from "node:assert/strict";
import { ManualClock } from "../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../support/test-app";

describe("persons: fixed routes beside /persons/{id}", () => {
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-04-01T10:00:00Z"));
  before(async () => {
    t = await startTestApp({ clock });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    await t.post("/api/v1/persons", { person_id: "tom", display_name: "Tom" });
    await t.app.ctx
      .db("person_locations")
      .insert({ person_id: "rose", room_id: "3", room_name: "kitchen", source: "camera", confidence: 0.9, updated_at: "2026-04-01T09:50:00.000Z" });
    await t.app.ctx.db("persons").where({ person_id: "tom" }).update({ enrolled: true, embedding_count: 7, enrolled_at: "2026-03-30T08:00:00.000Z" });
  });
  after(() => t.close());

  it("GET /persons/locations lists every member's location, stale or not", async () => {
    const res = await t.get("/api/v1/persons/locations");
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.map((l: { person_id: string; room_name: string | null; stale: boolean }) => [l.person_id, l.room_name, l.stale]),
      [
        ["rose", "kitchen", false],
        ["tom", null, true],
      ],
    );
    clock.advance(31 * 60_000);
    assert.equal((await t.get("/api/v1/persons/locations")).body[0].stale, true, "older than the stale timeout");
  });

  it("GET /persons/enrolled lists the enrolled members", async () => {
    const res = await t.get("/api/v1/persons/enrolled");
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, [{ person_id: "tom", display_name: "Tom", embedding_count: 7, enrolled_at: "2026-03-30T08:00:00.000Z" }]);
  });

  it("refuses the route names as person ids, and derives another id from such a name", async () => {
    for (const id of ["enrolled", "locations"]) {
      const res = await t.post("/api/v1/persons", { person_id: id, display_name: "X" });
      assert.equal(res.status, 422);
      assert.match(res.body.detail, /person_id: is a reserved word/);
    }
    const derived = await t.post("/api/v1/persons", { display_name: "Locations" });
    assert.equal(derived.status, 201, derived.text);
    assert.equal(derived.body.person_id, "locations_person");
  });
});
