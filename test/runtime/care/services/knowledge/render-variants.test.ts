/** Rendering one picture into layout variants: sizes, formats, fit, and a dither of only black and white. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { decodeWorking, renderVariant } from "../../../../../runtime/care/services/knowledge/images/render-variants";
import type { VariantSpec } from "../../../../../runtime/care/services/knowledge/layouts/layout-schema";
import { eyePixels, gradientJpeg, onlyBlackAndWhite, portraitJpeg } from "./knowledge-test-support";

const settings = buildSettings({});
const spec = (over: Partial<VariantSpec>): VariantSpec => ({
  target_width: 400,
  target_height: 300,
  fit_mode: "cover",
  color_mode: "rgb",
  format: "webp",
  ...over,
});

describe("knowledge variant rendering", () => {
  let photo: Buffer;
  before(async () => {
    photo = await gradientJpeg(1200, 600);
  });

  const render = async (s: VariantSpec, focus?: "left" | "right") => renderVariant(await decodeWorking(settings, photo, [s]), s, focus ? { focus } : {});

  it("gives each variant its exact size and format", async () => {
    for (const s of [spec({}), spec({ format: "png", target_width: 320, target_height: 480 }), spec({ fit_mode: "contain", format: "png" })]) {
      const meta = await sharp(await render(s)).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], [s.format, s.target_width, s.target_height]);
    }
  });

  it("contain pads with white, cover fills and crops toward the focus", async () => {
    const contained = await sharp(await render(spec({ fit_mode: "contain", format: "png" })))
      .raw()
      .toBuffer();
    // A 2:1 picture in a 4:3 box: white bands above and below.
    assert.deepEqual([...contained.subarray(0, 3)], [255, 255, 255]);
    const left = await sharp(await render(spec({ format: "png", target_width: 300, target_height: 300 }), "left")).stats();
    const right = await sharp(await render(spec({ format: "png", target_width: 300, target_height: 300 }), "right")).stats();
    // The gradient's red grows to the right: the right crop is redder.
    assert.ok(right.channels[0].mean > left.channels[0].mean + 100, `${right.channels[0].mean} vs ${left.channels[0].mean}`);
  });

  it("crops a portrait for the one-large-picture layout toward the face, unless a focus is set", async () => {
    const portrait = await portraitJpeg();
    const hero = spec({ format: "png", target_width: 1280, target_height: 720 });
    const working = await decodeWorking(settings, portrait, [hero]);
    assert.ok((await eyePixels(await renderVariant(working, hero))) > 500, "the eyes are in the picture");
    assert.equal(await eyePixels(await renderVariant(working, hero, { focus: "center" })), 0, "the middle of a portrait is the chest");
  });

  it("dithers bw_dither to a 1-bit PNG of only black and white pixels, with both present", async () => {
    const png = await render(spec({ color_mode: "bw_dither", format: "png", target_width: 800, target_height: 320, fit_mode: "contain" }));
    const meta = await sharp(png).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["png", 800, 320]);
    assert.equal(await onlyBlackAndWhite(png), true);
    const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.ok(data.includes(0) && data.includes(255), "a photo dithers to a mix of black and white");
  });

  it("refuses a picture it cannot decode with a 422 naming the image", async () => {
    await assert.rejects(
      decodeWorking(settings, Buffer.concat([photo.subarray(0, 200), Buffer.alloc(200)]), [spec({})]),
      (err: Error & { status?: number }) => err.status === 422 && /^image: the picture cannot be decoded/.test(err.message),
    );
  });
});
