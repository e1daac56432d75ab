/** Render, previews, reset, states and the admin view of a display, over real HTTP. */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { DEFAULT_TEMPLATE_REGIONS } from "../../../../../runtime/care/services/eink/default-template";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { countDiffering, decodePng, getBytes, pixel, postForm, solidPng } from "./eink-test-support";

const body = DEFAULT_TEMPLATE_REGIONS.find((r) => r.name === "body")!;
const title = DEFAULT_TEMPLATE_REGIONS.find((r) => r.name === "title")!;
const WHITE = [255, 255, 255];

describe("e-ink render, preview, reset and states", () => {
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-22T10:00:00Z"));
  before(async () => {
    t = await startTestApp({ clock });
  });
  after(() => t.close());

  it("renders for every registered e-ink display when none is named, with the default expiry (30 min)", async () => {
    const res = await t.post("/api/v1/image/render", { text: "Time for your walk" });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, "rendered");
    assert.deepEqual([...res.body.sensor_ids].sort(), ["bedside_terminal", "hall_display"]);
    assert.equal(res.body.expires_at, "2026-11-22T10:30:00.000Z");
    const states = await t.get("/api/v1/image/states");
    const hall = states.body.find((s: { sensor_id: string }) => s.sensor_id === "hall_display");
    assert.equal(hall.has_active_image, true);
    assert.equal(hall.expired, false);
    assert.equal(hall.rendered_text, "Time for your walk");
    assert.equal(hall.last_served_hash, null);
  });

  it("draws each region's own text (title and body), not one text everywhere", async () => {
    const res = await t.post("/api/v1/image/render", {
      regions: { title: "Reminder", body: "Blood pressure tablet after breakfast" },
      sensor_ids: ["hall_display"],
      expires_in_minutes: 5,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.expires_at, "2026-11-22T10:05:00.000Z");
    const img = await getBytes(t, "/api/v1/image/active/hall_display");
    assert.equal(img.status, 200);
    assert.equal(img.headers.get("x-image-source"), "active");
    const decoded = await decodePng(img.bytes);
    assert.ok(countDiffering(decoded, { x: title.x, y: title.y, width: title.width, height: title.height }, WHITE) > 200);
    assert.ok(countDiffering(decoded, { x: body.x, y: body.y + 8, width: body.width, height: body.height - 16 }, WHITE) > 500);
    const footerInk = countDiffering(decoded, { x: 40, y: 410, width: 720, height: 50 }, WHITE);
    assert.equal(footerInk, 0, "the footer got no text");
  });

  it("answers 422 for unknown sensor ids, non-display sensors, unknown regions and templates, and no text", async () => {
    const unknown = await t.post("/api/v1/image/render", { text: "x", sensor_ids: ["hall_display", "ghost"] });
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.detail, /^sensor_ids: unknown sensor\(s\): ghost/);
    const camera = await t.post("/api/v1/image/render", { text: "x", sensor_ids: ["kitchen_cam"] });
    assert.match(camera.body.detail, /not e-ink displays: kitchen_cam/);
    const region = await t.post("/api/v1/image/render", { regions: { headline: "x" } });
    assert.match(region.body.detail, /^regions\.headline: template 'Default card' has no region named 'headline'/);
    const tpl = await t.post("/api/v1/image/render", { text: "x", template_id: 999 });
    assert.match(tpl.body.detail, /^template_id: template 999 does not exist/);
    const byName = await t.post("/api/v1/image/render", { text: "x", template: "Nope" });
    assert.match(byName.body.detail, /^template: no template named 'Nope'/);
    const empty = await t.post("/api/v1/image/render", { sensor_ids: ["hall_display"] });
    assert.match(empty.body.detail, /^text:/);
    const expiry = await t.post("/api/v1/image/render", { text: "x", expires_in_minutes: 0 });
    assert.match(expiry.body.detail, /^expires_in_minutes:/);
  });

  it("renders on a template chosen by name", async () => {
    const created = await postForm(t, "POST", "/api/v1/image/templates", {
      name: "Black banner",
      regions_json: JSON.stringify([
        {
          name: "main",
          x: 0,
          y: 0,
          width: 800,
          height: 480,
          font_size_max: 80,
          font_size_min: 20,
          align: "center",
          bg_color: "#000000",
          text_color: "#ffffff",
        },
      ]),
    });
    assert.equal(created.status, 201, created.text);
    const res = await t.post("/api/v1/image/render", { text: "Hello", template: "black banner", sensor_ids: ["bedside_terminal"] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.template_id, created.body.id);
    const img = await decodePng((await getBytes(t, "/api/v1/image/active/bedside_terminal")).bytes);
    assert.deepEqual(pixel(img, 2, 2), [0, 0, 0]);
  });

  it("previews a PNG without saving anything", async () => {
    const before = await t.get("/api/v1/image/states");
    const res = await getBytes(t, "/api/v1/image/preview", { method: "POST", body: { text: "Just looking" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    const img = await decodePng(res.bytes);
    assert.equal(img.width, 800);
    assert.ok(countDiffering(img, { x: body.x, y: body.y + 8, width: body.width, height: body.height - 16 }, WHITE) > 200);
    assert.deepEqual((await t.get("/api/v1/image/states")).body, before.body);
    const bw = await getBytes(t, "/api/v1/image/preview", { method: "POST", body: { text: "Mono", color_mode: "bw_dither" } });
    assert.equal(bw.status, 200);
  });

  it("previews a form with an uploaded background and overridden regions", async () => {
    const res = await postForm(
      t,
      "POST",
      "/api/v1/image/preview-form",
      {
        regions_json: JSON.stringify([
          {
            name: "main",
            x: 100,
            y: 100,
            width: 600,
            height: 280,
            font_size_max: 60,
            font_size_min: 20,
            align: "left",
            bg_color: "#ffffff",
            text_color: "#000000",
          },
        ]),
        text: "Preview text",
      },
      await solidPng(800, 480, [250, 200, 0]),
    );
    assert.equal(res.status, 200, res.text);
    const img = await decodePng(res.body as Buffer);
    assert.deepEqual(pixel(img, 10, 10), [250, 200, 0]);
    assert.deepEqual(pixel(img, 105, 105), [255, 255, 255]);
    assert.ok(countDiffering(img, { x: 100, y: 100, width: 600, height: 280 }, WHITE) > 200);
    const bad = await postForm(t, "POST", "/api/v1/image/preview-form", { regions_json: "[1]" });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /^regions_json\.0:/);
    const texts = await postForm(t, "POST", "/api/v1/image/preview-form", { texts_json: JSON.stringify({ title: "Hi", footer: "bye" }) });
    assert.equal(texts.status, 200, texts.text);
  });

  it("resets displays to the default template", async () => {
    const res = await t.post("/api/v1/image/reset", { sensor_ids: ["hall_display"] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { status: "reset", sensor_ids: ["hall_display"] });
    const hall = (await t.get("/api/v1/image/states")).body.find((s: { sensor_id: string }) => s.sensor_id === "hall_display");
    assert.equal(hall.has_active_image, false);
    const img = await getBytes(t, "/api/v1/image/active/hall_display");
    assert.equal(img.headers.get("x-image-source"), "default");
    const all = await t.post("/api/v1/image/reset", {});
    assert.deepEqual([...all.body.sensor_ids].sort(), ["bedside_terminal", "hall_display"]);
    assert.equal((await t.post("/api/v1/image/reset", { sensor_ids: ["ghost"] })).status, 422);
  });

  it("marks an expired image in the states list", async () => {
    await t.post("/api/v1/image/render", { text: "Soon gone", sensor_ids: ["hall_display"], expires_in_minutes: 10 });
    clock.advance(10 * 60_000);
    const hall = (await t.get("/api/v1/image/states")).body.find((s: { sensor_id: string }) => s.sensor_id === "hall_display");
    assert.equal(hall.has_active_image, true);
    assert.equal(hall.expired, true);
  });

  it("answers 404 for the admin view of an unknown display, and lets no display key render", async () => {
    assert.equal((await t.get("/api/v1/image/active/ghost")).status, 404);
    assert.equal((await t.post("/api/v1/image/render", { text: "x" }, KEYS.display)).status, 403);
    assert.equal((await t.post("/api/v1/image/render", { text: "x" }, KEYS.caregiver)).status, 403);
  });
});
