/** `/image/templates` over real HTTP: multipart create, validation, update, background, delete, preview. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { decodePng, getBytes, pixel, postForm, solidPng } from "./eink-test-support";

const region = (over: Record<string, unknown> = {}) => ({
  name: "title",
  x: 20,
  y: 20,
  width: 760,
  height: 100,
  font_size_max: 48,
  font_size_min: 20,
  align: "center",
  bg_color: "#ffffff",
  text_color: "#000000",
  ...over,
});

describe("e-ink templates API", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("has a default template with title, body and footer regions on a fresh install", async () => {
    const res = await t.get("/api/v1/image/templates");
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 1);
    const [def] = res.body;
    assert.equal(def.is_default, true);
    assert.deepEqual(
      def.regions.map((r: { name: string }) => r.name),
      ["title", "body", "footer"],
    );
    const preview = await getBytes(t, `/api/v1/image/templates/${def.id}/preview`);
    assert.equal(preview.status, 200);
    assert.equal(preview.headers.get("content-type"), "image/png");
    const meta = await sharp(preview.bytes).metadata();
    assert.equal(meta.width, 800);
    assert.equal(meta.height, 480);
  });

  it("creates a template from a multipart upload and normalizes the background to 800x480 PNG", async () => {
    const image = await solidPng(400, 400, [10, 120, 200]);
    const res = await postForm(
      t,
      "POST",
      "/api/v1/image/templates",
      {
        name: "Medicine card",
        description: "Blue card for medicine reminders",
        font_filename: "NotoSans_700Bold.ttf",
        regions_json: JSON.stringify([region(), region({ name: "body", y: 140, height: 300, align: "left", bg_color: null })]),
        is_default: "false",
      },
      image,
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.name, "Medicine card");
    assert.equal(res.body.font_filename, "NotoSans_700Bold.ttf");
    assert.equal(res.body.regions.length, 2);
    assert.equal(res.body.regions[1].bg_color, null);
    assert.equal(res.body.is_default, false);
    const preview = await getBytes(t, `/api/v1/image/templates/${res.body.id}/preview`);
    const img = await decodePng(preview.bytes);
    assert.equal(img.width, 800);
    assert.equal(img.height, 480);
    assert.deepEqual(pixel(img, 400, 240), [10, 120, 200]); // the picture, centred
    assert.deepEqual(pixel(img, 5, 240), [255, 255, 255]); // white bars beside it (contain)
  });

  it("gives a template without regions one centred region named main", async () => {
    const res = await postForm(t, "POST", "/api/v1/image/templates", { name: "Plain" });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.regions.length, 1);
    const [main] = res.body.regions;
    assert.equal(main.name, "main");
    assert.equal(main.align, "center");
    assert.equal(main.x + main.width / 2, 400);
    assert.equal(main.y + main.height / 2, 240);
  });

  const bad: [string, unknown, RegExp][] = [
    ["outside the canvas", [region({ x: 700, width: 200 })], /^regions_json\.0\.width: x \+ width must not exceed 800/],
    ["below the canvas", [region({ y: 400, height: 100 })], /^regions_json\.0\.height:/],
    ["negative x", [region({ x: -1 })], /^regions_json\.0\.x:/],
    ["min above max font size", [region({ font_size_min: 60, font_size_max: 40 })], /^regions_json\.0\.font_size_min: must not be above font_size_max/],
    ["unknown align", [region({ align: "justify" })], /^regions_json\.0\.align: must be one of left, center, right/],
    ["bad colour", [region({ text_color: "black" })], /^regions_json\.0\.text_color: must be a hex colour/],
    ["bad background colour", [region({ bg_color: "#12345" })], /^regions_json\.0\.bg_color:/],
    ["unknown region property", [region({ font: "x" })], /^regions_json\.0\.font: unknown field/],
    ["duplicate names", [region(), region()], /^regions_json\.1\.name: duplicate region name/],
  ];
  for (const [what, regions, detail] of bad) {
    it(`answers 422 naming the field for a region ${what}`, async () => {
      const res = await postForm(t, "POST", "/api/v1/image/templates", { name: `bad ${what}`, regions_json: JSON.stringify(regions) });
      assert.equal(res.status, 422, res.text);
      assert.match(res.body.detail, detail);
    });
  }

  it("answers 422 for regions_json that is not JSON, an unknown font, a bad flag and an unreadable image", async () => {
    const notJson = await postForm(t, "POST", "/api/v1/image/templates", { name: "x1", regions_json: "[{" });
    assert.match(notJson.body.detail, /^regions_json: not valid JSON/);
    const font = await postForm(t, "POST", "/api/v1/image/templates", { name: "x2", font_filename: "Comic.ttf" });
    assert.equal(font.status, 422);
    assert.match(font.body.detail, /^font_filename: unknown font/);
    const flag = await postForm(t, "POST", "/api/v1/image/templates", { name: "x3", is_default: "maybe" });
    assert.match(flag.body.detail, /^is_default:/);
    const image = await postForm(t, "POST", "/api/v1/image/templates", { name: "x4" }, Buffer.from("not an image"));
    assert.equal(image.status, 422);
    assert.match(image.body.detail, /^image: not a readable image/);
    const json = await t.post("/api/v1/image/templates", { name: "x5" });
    assert.equal(json.status, 422);
    assert.match(json.body.detail, /multipart/);
  });

  it("refuses an SVG declared as image/png as a background (the bytes decide, not the declared type), and keeps no template", async () => {
    const svg = Buffer.from(
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="800" height="480"><rect width="800" height="480" fill="red"/></svg>',
    );
    const created = await postForm(t, "POST", "/api/v1/image/templates", { name: "Svg background" }, svg);
    assert.equal(created.status, 422, created.text);
    assert.match(created.body.detail, /^image: not a readable image .*judged by its content/);
    const names = (await t.get("/api/v1/image/templates")).body.map((x: { name: string }) => x.name);
    assert.ok(!names.includes("Svg background"));
    const plain = await postForm(t, "POST", "/api/v1/image/templates", { name: "Svg later" });
    const replaced = await postForm(t, "PUT", `/api/v1/image/templates/${plain.body.id}/image`, {}, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    assert.equal(replaced.status, 422, replaced.text);
    const preview = await postForm(t, "POST", "/api/v1/image/preview-form", { text: "Hello" }, svg);
    assert.equal(preview.status, 422, preview.text);
  });

  it("answers 409 for a duplicate name", async () => {
    const res = await postForm(t, "POST", "/api/v1/image/templates", { name: "plain" });
    assert.equal(res.status, 409);
  });

  it("answers 409 for the same name in another case beyond ASCII, on SQLite as on PostgreSQL", async () => {
    assert.equal((await postForm(t, "POST", "/api/v1/image/templates", { name: "KÜCHE" })).status, 201);
    const res = await postForm(t, "POST", "/api/v1/image/templates", { name: "Küche" });
    assert.equal(res.status, 409, res.text);
    assert.match(res.body.detail, /A template named 'KÜCHE' already exists/);
  });

  it("updates regions and metadata with JSON, validating like create", async () => {
    const created = await postForm(t, "POST", "/api/v1/image/templates", { name: "Editable" });
    const id = created.body.id;
    const res = await t.request("PUT", `/api/v1/image/templates/${id}`, {
      body: { description: "changed", regions: [region({ name: "main", align: "right" })], color_mode: "bw_dither" },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.description, "changed");
    assert.equal(res.body.regions[0].align, "right");
    assert.equal(res.body.color_mode, "bw_dither");
    const bad = await t.request("PUT", `/api/v1/image/templates/${id}`, { body: { regions: [region({ font_size_min: 90 })] } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /^regions\.0\.font_size_min:/);
    const unknown = await t.request("PUT", `/api/v1/image/templates/${id}`, { body: { colour: "x" } });
    assert.match(unknown.body.detail, /^colour: unknown field/);
    assert.equal((await t.request("PUT", "/api/v1/image/templates/9999", { body: { description: "x" } })).status, 404);
  });

  it("makes one template the default at a time", async () => {
    const created = await postForm(t, "POST", "/api/v1/image/templates", { name: "New default", is_default: "true" });
    assert.equal(created.body.is_default, true);
    const all = await t.get("/api/v1/image/templates");
    assert.deepEqual(
      all.body.filter((x: { is_default: boolean }) => x.is_default).map((x: { name: string }) => x.name),
      ["New default"],
    );
    const old = all.body.find((x: { name: string }) => x.name === "Default card");
    await t.request("PUT", `/api/v1/image/templates/${old.id}`, { body: { is_default: true } });
  });

  it("replaces the background with a multipart upload", async () => {
    const created = await postForm(t, "POST", "/api/v1/image/templates", { name: "Repaint" });
    const res = await postForm(t, "PUT", `/api/v1/image/templates/${created.body.id}/image`, {}, await solidPng(1600, 960, [0, 200, 0]));
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.body.background_hash, created.body.background_hash);
    const img = await decodePng((await getBytes(t, `/api/v1/image/templates/${created.body.id}/preview`)).bytes);
    assert.deepEqual(pixel(img, 0, 0), [0, 200, 0]);
    const none = await postForm(t, "PUT", `/api/v1/image/templates/${created.body.id}/image`, {});
    assert.equal(none.status, 422);
    assert.match(none.body.detail, /^image:/);
  });

  it("deletes a template, but not the default one (409)", async () => {
    const all = await t.get("/api/v1/image/templates");
    const def = all.body.find((x: { is_default: boolean }) => x.is_default);
    const refused = await t.request("DELETE", `/api/v1/image/templates/${def.id}`);
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, /default/);
    const other = all.body.find((x: { is_default: boolean }) => !x.is_default);
    assert.equal((await t.request("DELETE", `/api/v1/image/templates/${other.id}`)).status, 204);
    assert.equal((await t.get(`/api/v1/image/templates/${other.id}`)).status, 404);
    assert.equal((await t.request("DELETE", `/api/v1/image/templates/${other.id}`)).status, 404);
  });

  it("lists the shipped fonts, Latin and Tamil at least", async () => {
    const res = await t.get("/api/v1/image/fonts");
    assert.equal(res.status, 200);
    const scripts = new Set(res.body.filter((f: { available: boolean }) => f.available).map((f: { script: string }) => f.script));
    for (const s of ["Latin", "Tamil", "Devanagari", "Bengali", "Telugu", "Kannada", "Malayalam", "Gujarati", "Gurmukhi"]) assert.ok(scripts.has(s), s);
  });

  it("lets a caregiver read templates but not change them", async () => {
    assert.equal((await t.get("/api/v1/image/templates", KEYS.caregiver)).status, 200);
    assert.equal((await postForm(t, "POST", "/api/v1/image/templates", { name: "nope" }, undefined, KEYS.caregiver)).status, 403);
  });
});
