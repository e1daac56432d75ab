/**
 * `GET /image/active`, row by row through the spec's serving table, on a manual clock.
 * The display is `hall_display` (key DISP0001); the default template exists from startup.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { getBytes } from "./eink-test-support";

const MINUTE = 60_000;

const poll = (t: TestApp, key: string = KEYS.display, query = "") => getBytes(t, `/api/v1/image/active${query}`, { key });

async function stateOf(t: TestApp, sensorId: string) {
  const res = await t.get("/api/v1/image/states");
  assert.equal(res.status, 200);
  return (
    res.body as { sensor_id: string; last_served_hash: string | null; last_served_at: string | null; expired: boolean; has_active_image: boolean }[]
  ).find((s) => s.sensor_id === sensorId);
}

describe("e-ink serving: GET /image/active", () => {
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-22T08:00:00Z"));
  before(async () => {
    t = await startTestApp({ clock });
  });
  after(() => t.close());

  let defaultHash = "";

  it("gives a new display's first poll the image (the default card, as it has no message)", async () => {
    const res = await poll(t);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.equal(res.headers.get("x-image-source"), "default");
    defaultHash = res.headers.get("x-image-hash") ?? "";
    assert.match(defaultHash, /^[0-9a-f]{64}$/);
    const state = await stateOf(t, "hall_display");
    assert.equal(state?.last_served_hash, defaultHash);
    assert.equal(state?.last_served_at, "2026-11-22T08:00:00.000Z");
  });

  it("answers 204 with no body and no state change for the same image within the refresh window", async () => {
    clock.advance(59 * MINUTE);
    const res = await poll(t);
    assert.equal(res.status, 204);
    assert.equal(res.bytes.length, 0);
    const state = await stateOf(t, "hall_display");
    assert.equal(state?.last_served_at, "2026-11-22T08:00:00.000Z");
  });

  it("delivers the same image again once the refresh window (60 min) has elapsed, and records it", async () => {
    clock.advance(1 * MINUTE);
    const res = await poll(t);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-image-hash"), defaultHash);
    assert.equal((await stateOf(t, "hall_display"))?.last_served_at, "2026-11-22T09:00:00.000Z");
  });

  let activeHash = "";
  it("delivers a newly rendered image at once (its hash differs), then suppresses it", async () => {
    const render = await t.post("/api/v1/image/render", { text: "Lunch at one", sensor_ids: ["hall_display"], expires_in_minutes: 30 });
    assert.equal(render.status, 200, render.text);
    assert.deepEqual(render.body.sensor_ids, ["hall_display"]);
    clock.advance(1 * MINUTE);
    const res = await poll(t);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-image-source"), "active");
    activeHash = res.headers.get("x-image-hash") ?? "";
    assert.notEqual(activeHash, defaultHash);
    assert.equal((await poll(t)).status, 204);
  });

  it("serves the default card once the active image has expired, with the same suppression", async () => {
    clock.advance(30 * MINUTE); // rendered at 09:00, expires 09:30; now 09:31
    const res = await poll(t);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-image-source"), "default");
    assert.equal(res.headers.get("x-image-hash"), defaultHash);
    const state = await stateOf(t, "hall_display");
    assert.equal(state?.expired, true);
    assert.equal(state?.last_served_hash, defaultHash);
    assert.equal((await poll(t)).status, 204);
  });

  it("serves the default card when the active image file is gone", async () => {
    await t.post("/api/v1/image/render", { text: "Tea at four", sensor_ids: ["hall_display"] });
    const first = await poll(t);
    assert.equal(first.headers.get("x-image-source"), "active");
    const file = path.join(t.app.ctx.dataDir, "eink", "images", `${first.headers.get("x-image-hash")}.png`);
    fs.rmSync(file);
    const res = await poll(t);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-image-source"), "default");
  });

  it("always gives a display its first poll, even when others were served the same image", async () => {
    await t.post("/api/v1/image/render", { text: "Walk after lunch", sensor_ids: ["hall_display", "bedside_terminal"] });
    assert.equal((await poll(t)).status, 200);
    assert.equal((await poll(t)).status, 204);
    const terminal = await poll(t, KEYS.terminal);
    assert.equal(terminal.status, 200);
    assert.equal(terminal.headers.get("x-image-source"), "active");
  });

  it("answers 404 with a detail when there is no active image and no default template", async () => {
    await t.post("/api/v1/image/reset", { sensor_ids: ["hall_display"] });
    const templates = await t.get("/api/v1/image/templates");
    const def = templates.body.find((x: { is_default: boolean }) => x.is_default);
    const unset = await t.request("PUT", `/api/v1/image/templates/${def.id}`, { body: { is_default: false } });
    assert.equal(unset.status, 200, unset.text);
    const res = await t.get("/api/v1/image/active", KEYS.display);
    assert.equal(res.status, 404);
    assert.match(res.body.detail, /no default template/);
    await t.request("PUT", `/api/v1/image/templates/${def.id}`, { body: { is_default: true } });
  });

  it("lets an API key poll for a named display, and refuses one without a display or for an unknown one", async () => {
    assert.equal((await t.get("/api/v1/image/active", KEYS.admin)).status, 422);
    const unknown = await t.get("/api/v1/image/active?sensor_id=no_such_display", KEYS.admin);
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.detail, /^sensor_id:/);
    const named = await poll(t, KEYS.admin, "?sensor_id=hall_display");
    assert.ok([200, 204].includes(named.status), String(named.status));
  });

  it("lets a caregiver or an agent peek at a display without taking its delivery", async () => {
    await t.post("/api/v1/image/render", { text: "Pills at noon", sensor_ids: ["hall_display"] });
    for (const key of [KEYS.caregiver, KEYS.mcp, KEYS.admin, KEYS.caregiver]) {
      const peek = await poll(t, key, "?sensor_id=hall_display");
      assert.equal(peek.status, 200, "a peek always shows the card");
      assert.equal(peek.headers.get("x-image-source"), "active");
    }
    assert.equal((await poll(t)).status, 200, "the display's own poll still gets the new card");
    assert.equal((await poll(t)).status, 204, "and only the display's own poll counts as served");
    assert.equal((await poll(t, KEYS.caregiver, "?sensor_id=hall_display")).status, 200);
  });

  it("refuses a device that asks for another display's image", async () => {
    const res = await t.get("/api/v1/image/active?sensor_id=bedside_terminal", KEYS.display);
    assert.equal(res.status, 403);
  });
});

describe("e-ink serving with refresh_window_minutes 0, and the three places a device key may be", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ settings: { image: { refresh_window_minutes: 0 } } });
  });
  after(() => t.close());

  it("always delivers when the window is 0", async () => {
    for (let i = 0; i < 3; i++) assert.equal((await poll(t)).status, 200);
  });

  it("accepts the device key in X-API-Key", async () => {
    const res = await getBytes(t, "/api/v1/image/active", { key: KEYS.display });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
  });

  it("accepts the device key in the api_key query parameter", async () => {
    const res = await getBytes(t, `/api/v1/image/active?api_key=${KEYS.display}`, { key: null });
    assert.equal(res.status, 200);
  });

  it("accepts the device key in an Authorization header, bare or as Bearer", async () => {
    const bare = await getBytes(t, "/api/v1/image/active", { key: null, headers: { authorization: KEYS.display } });
    assert.equal(bare.status, 200);
    const bearer = await getBytes(t, "/api/v1/image/active", { key: null, headers: { authorization: `Bearer ${KEYS.display}` } });
    assert.equal(bearer.status, 200);
    const wrong = await getBytes(t, "/api/v1/image/active", { key: null, headers: { authorization: "Bearer WRONGKEY1" } });
    assert.equal(wrong.status, 401);
  });
});
