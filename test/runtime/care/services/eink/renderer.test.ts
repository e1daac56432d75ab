/** The real renderer: a decoded 800x480 PNG with text where the regions are. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { listFonts } from "../../../../../runtime/care/services/eink/fonts";
import { defaultRegions, type Region } from "../../../../../runtime/care/services/eink/region";
import { renderCard, type CardLayout } from "../../../../../runtime/care/services/eink/renderer";
import { countDiffering, decodePng, inkSpan, pixel } from "./eink-test-support";

const region = (over: Partial<Region> & Pick<Region, "name" | "x" | "y" | "width" | "height">): Region => ({
  font_size_max: 48,
  font_size_min: 16,
  align: "center",
  bg_color: null,
  text_color: "#000000",
  ...over,
});

const layout = (regions: Region[], over: Partial<CardLayout> = {}): CardLayout => ({
  background: null,
  regions,
  font_filename: null,
  color_mode: "rgb",
  ...over,
});

describe("e-ink renderer", () => {
  it("draws an 800x480 PNG with the text inside its region and nothing outside", async () => {
    const r = region({ name: "main", x: 100, y: 100, width: 400, height: 200 });
    const { png, fitted } = await renderCard(layout([r]), { main: "Lunch is at one o'clock" });
    const img = await decodePng(png);
    assert.equal(img.width, 800);
    assert.equal(img.height, 480);
    assert.ok(countDiffering(img, r, [255, 255, 255]) > 200, "text pixels in the region");
    const outside =
      countDiffering(img, { x: 0, y: 0, width: 800, height: 100 }, [255, 255, 255]) +
      countDiffering(img, { x: 0, y: 300, width: 800, height: 180 }, [255, 255, 255]);
    assert.equal(outside, 0);
    assert.ok(fitted.main.sizePx >= 16 && fitted.main.sizePx <= 48);
  });

  it("fills a region's background colour and draws text in its colour", async () => {
    const r = region({ name: "banner", x: 0, y: 0, width: 800, height: 120, bg_color: "#000000", text_color: "#ffffff" });
    const img = await decodePng((await renderCard(layout([r]), { banner: "Doctor visit today" })).png);
    assert.deepEqual(pixel(img, 3, 3), [0, 0, 0]);
    assert.ok(countDiffering(img, r, [0, 0, 0]) > 200, "white text on the black box");
    assert.deepEqual(pixel(img, 400, 300), [255, 255, 255]);
  });

  it("aligns left and right", async () => {
    const band = { x: 0, y: 0, width: 800, height: 100 };
    const left = await decodePng((await renderCard(layout([region({ name: "a", ...band, align: "left", font_size_max: 30 })]), { a: "Hi" })).png);
    const right = await decodePng((await renderCard(layout([region({ name: "a", ...band, align: "right", font_size_max: 30 })]), { a: "Hi" })).png);
    const l = inkSpan(left, 0, 100);
    const r = inkSpan(right, 0, 100);
    assert.ok(l && l.left < 30, JSON.stringify(l));
    assert.ok(r && r.right > 770, JSON.stringify(r));
  });

  it("shrinks long text and truncates it with an ellipsis at the minimum size", async () => {
    const r = region({ name: "main", x: 50, y: 50, width: 300, height: 100, font_size_max: 40, font_size_min: 14 });
    const long = "Please remember to drink a glass of water every hour. ".repeat(30);
    const { png, fitted } = await renderCard(layout([r]), { main: long });
    assert.equal(fitted.main.sizePx, 14);
    assert.equal(fitted.main.truncated, true);
    assert.ok(fitted.main.lines[fitted.main.lines.length - 1].endsWith("\u2026"));
    const img = await decodePng(png);
    assert.equal(countDiffering(img, { x: 0, y: 151, width: 800, height: 329 }, [255, 255, 255]), 0, "nothing below the region");
  });

  it("never lets a long unbreakable word overflow its region", async () => {
    const r = region({ name: "main", x: 200, y: 200, width: 200, height: 60, font_size_max: 30, font_size_min: 20 });
    const { png, fitted } = await renderCard(layout([r]), { main: "Supercalifragilisticexpialidocious".repeat(5) });
    assert.equal(fitted.main.truncated, true);
    const img = await decodePng(png);
    const span = inkSpan(img, 200, 260);
    assert.ok(span && span.left >= 200 && span.right < 400, JSON.stringify(span));
    assert.equal(countDiffering(img, { x: 0, y: 0, width: 200, height: 480 }, [255, 255, 255]), 0);
    assert.equal(countDiffering(img, { x: 400, y: 0, width: 400, height: 480 }, [255, 255, 255]), 0);
  });

  it("renders Tamil text with the shipped Tamil font", async () => {
    assert.ok(listFonts().some((f) => f.script === "Tamil" && f.available));
    const [r] = defaultRegions();
    const { png, fitted } = await renderCard(layout([r]), { main: "மருந்து எடுத்துக்கொள்ளுங்கள் — மதிய உணவு ஒரு மணிக்கு" });
    const img = await decodePng(png);
    assert.ok(countDiffering(img, r, [255, 255, 255]) > 500);
    assert.ok(fitted.main.lines.length >= 1);
  });

  it("lays out Devanagari and Latin in one message (script fallback)", async () => {
    const [r] = defaultRegions();
    const { png } = await renderCard(layout([r]), { main: "दवाई लें — take your medicine" });
    assert.ok(countDiffering(await decodePng(png), r, [255, 255, 255]) > 500);
  });

  it("writes a 1-bit PNG for bw_dither", async () => {
    const [r] = defaultRegions();
    const { png } = await renderCard(layout([r], { color_mode: "bw_dither" }), { main: "Good morning" });
    const meta = await sharp(png).metadata();
    assert.equal(meta.width, 800);
    assert.equal(meta.height, 480);
    assert.equal(meta.bitsPerSample, 1);
    const img = await decodePng(png);
    const values = new Set<number>();
    for (let i = 0; i < img.data.length; i += img.channels) values.add(img.data[i]);
    assert.deepEqual(
      [...values].sort((a, b) => a - b),
      [0, 255],
    );
  });

  it("writes a card without colour as 8-bit greyscale, and keeps colour when there is some", async () => {
    const [r] = defaultRegions();
    const grey = await renderCard(layout([r]), { main: "Black on white" });
    const greyMeta = await sharp(grey.png).metadata();
    assert.equal(greyMeta.channels, 1);
    assert.equal(greyMeta.bitsPerSample, 8);
    const red = await renderCard(layout([{ ...r, text_color: "#cc0000" }]), { main: "Red text" });
    assert.equal((await sharp(red.png).metadata()).channels, 3);
  });

  it("draws a card over its cached static layer pixel for pixel as a card drawn whole", async () => {
    // A grey, busy background (rules and blocks of many greys) and boxes of two colours.
    const blocks = Array.from({ length: 40 }, (_, i) => {
      const g = (i * 37) % 256;
      return { input: { create: { width: 60, height: 30, channels: 3 as const, background: { r: g, g, b: g } } }, left: (i * 97) % 740, top: (i * 53) % 450 };
    });
    const background = await sharp({ create: { width: 800, height: 480, channels: 3, background: { r: 255, g: 255, b: 255 } } })
      .composite(blocks)
      .png()
      .toBuffer();
    const regions = [
      region({ name: "title", x: 0, y: 0, width: 800, height: 100, bg_color: "#000000", text_color: "#ffffff" }),
      region({ name: "body", x: 20, y: 110, width: 560, height: 300, align: "left", font_size_max: 60 }),
      region({ name: "side", x: 600, y: 110, width: 200, height: 300, bg_color: "#cccccc", align: "right" }),
      region({ name: "footer", x: 0, y: 420, width: 800, height: 60 }),
    ];
    const texts = [
      { title: "Good morning, Asha", body: "Tablet after breakfast. மருந்து எடுத்துக்கொள்ளுங்கள். दवाई लें.", side: "Ravi calls at ten", footer: "" },
      { title: "Lunch", body: "Soup", side: "", footer: "Sunday 22 November · 12:00" },
    ];
    // A region overlapping another makes the renderer draw the card whole, stroke by stroke;
    // this one has neither text nor box, so it adds no pixel of its own.
    const overlapping = region({ name: "none", x: 0, y: 0, width: 1, height: 1 });
    for (const bg of [null, background]) {
      const over = { background: bg, backgroundKey: bg ? "busy" : undefined };
      for (const t of [...texts, ...texts]) {
        const onLayer = await renderCard(layout(regions, over), t);
        const whole = await renderCard(layout([...regions, overlapping], over), t);
        assert.ok(onLayer.png.equals(whole.png), `same PNG for ${JSON.stringify(t)} on ${bg ? "the busy" : "a white"} background`);
        assert.deepEqual(onLayer.fitted, whole.fitted);
      }
    }
  });

  it("draws onto the template background", async () => {
    const background = await sharp({ create: { width: 800, height: 480, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .png()
      .toBuffer();
    const img = await decodePng((await renderCard(layout([], { background, backgroundKey: "red" }), {})).png);
    assert.deepEqual(pixel(img, 10, 10), [200, 30, 30]);
  });
});
