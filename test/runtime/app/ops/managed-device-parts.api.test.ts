/**
 * A device whose key was made while the service runs (issue 43 §2) is a part like a settings
 * device (issue 44 §1), over real HTTP on a ManualClock: it joins at its first call with its
 * type's cadence (a display that stops polling goes late), and leaves the board when its key is
 * revoked, not when it is rotated (a device the family removed is no silent part).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { SAMPLE_EVERY_MS, type PartView } from "../../../../runtime/platform/health/parts-board";
import { eventually } from "../../../support/eventually";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const MINUTE = 60_000;

describe("parts: devices of keys made while the service runs", function () {
  this.timeout(30_000);
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-29T09:00:00Z"));

  const part = async (id: string): Promise<PartView | undefined> => {
    const res = await t.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.parts.find((p) => p.id === id);
  };
  const pass = async (ms: number) => {
    for (let done = 0; done < ms; done += SAMPLE_EVERY_MS) {
      clock.advance(SAMPLE_EVERY_MS);
      await t.app.ctx.parts?.sampled();
    }
  };
  const poll = (key: string) => t.request("GET", "/api/v1/image/active", { key: null, headers: { authorization: key } });

  before(async () => {
    t = await startTestApp({ clock });
    const made = await t.post("/api/v1/sensors", { sensor_id: "porch_display", name: "Porch display", sensor_type: "eink" });
    assert.equal(made.status, 201, made.text);
  });
  after(() => t.close());

  it("joins at its first call with a display's cadence, and goes late when it stops polling", async () => {
    const key = await t.post("/api/v1/admin/keys", { name: "porch display", kind: "device", device_type: "display", sensor_id: "porch_display" });
    assert.equal(key.status, 201, key.text);
    assert.equal(await part("device:porch_display"), undefined, "no part before it calls");
    assert.ok((await poll(key.body.key)).status < 500);
    const joined = await part("device:porch_display");
    assert.equal(joined?.state, "ok");
    assert.equal(joined?.kind, "display");
    assert.equal(joined?.expect_every_minutes, 10);
    await pass(11 * MINUTE);
    assert.equal((await part("device:porch_display"))?.state, "late");

    // A rotation keeps the device; a revocation takes it off the board.
    const rotated = await t.post(`/api/v1/admin/keys/${key.body.id}/rotate`, {});
    assert.equal(rotated.status, 200, rotated.text);
    assert.ok((await poll(rotated.body.key)).status < 500);
    assert.equal((await part("device:porch_display"))?.state, "ok");
    assert.equal((await t.request("DELETE", `/api/v1/admin/keys/${key.body.id}`)).status, 204);
    // Taken off as the revocation's event is handled, just after the answer.
    await eventually("the revoked device off the board", async () => (await part("device:porch_display")) === undefined);
  });
});
