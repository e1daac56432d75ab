import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { handler } from "../../../nodes/channels/eink/eink.handler";
import { spec } from "../../../nodes/channels/eink/eink.node";
import type { ChannelMessage } from "../../../nodes/_kit/handler-types";
import { ensureDefaultTemplate } from "../../../runtime/care/services/eink/default-template";
import { getDeviceState } from "../../../runtime/care/services/eink/device-states.store";
import { createSensor } from "../../../runtime/household/sensors/sensors.service";
import { MIN, notifyEnv, T0, type NotifyEnv } from "../../runtime/care/services/notify/notify-support";
import { DEFAULT_TEMPLATE_REGIONS } from "../../../runtime/care/services/eink/default-template";
import { listFonts } from "../../../runtime/care/services/eink/fonts";
import { readImage } from "../../../runtime/care/services/eink/image-store";
import { renderCard } from "../../../runtime/care/services/eink/renderer";
import { createPerson, deletePerson } from "../../../runtime/household/persons/persons.service";
import { decodePng, type DecodedImage } from "../../runtime/care/services/eink/eink-test-support";

/**
 * How far the card's ink in `rect` is from the reference's: ink pixels of either with no ink of
 * the other within one pixel, at the best shift of the reference (only the card's region is
 * read, never its rules). A card whose first font is Noto Sans places a line's middle by that
 * font's metrics, some pixels off the Devanagari font's; the glyphs themselves are the same.
 */
function inkDifference(
  card: DecodedImage,
  reference: DecodedImage,
  rect: { x: number; y: number; width: number; height: number },
): { differ: number; ink: number } {
  const dark = (img: DecodedImage, x: number, y: number): boolean =>
    x >= 0 && y >= 0 && x < img.width && y < img.height && img.data[(y * img.width + x) * img.channels]! < 128;
  const near = (img: DecodedImage, x: number, y: number): boolean => [-1, 0, 1].some((j) => [-1, 0, 1].some((i) => dark(img, x + i, y + j)));
  let ink = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) for (let x = rect.x; x < rect.x + rect.width; x++) if (dark(card, x, y)) ink += 1;
  let best = Infinity;
  for (let dy = -16; dy <= 16; dy++)
    for (let dx = -4; dx <= 4; dx++) {
      let differ = 0;
      for (let y = rect.y; y < rect.y + rect.height; y++)
        for (let x = rect.x; x < rect.x + rect.width; x++) {
          if (dark(card, x, y) && !near(reference, x - dx, y - dy)) differ += 1;
          if (dark(reference, x - dx, y - dy) && !near(card, x, y)) differ += 1;
        }
      best = Math.min(best, differ);
    }
  return { differ: best, ink };
}

// Beside the browser tests' screenshots, to be looked at.
const SCREENSHOT_DIR = path.resolve(__dirname, "../../../../test-output/screenshots");

const message = (text = "Time for your tablets", alert_level = "reminder"): ChannelMessage => ({
  alert_level,
  idempotency_key: null,
  message: text,
  room_name: "Kitchen",
  image_url: null,
  pipeline_data: {},
  execution_id: 3,
});

describe("eink channel handler", function () {
  this.timeout(30_000);
  let env: NotifyEnv;
  before(async () => {
    env = await notifyEnv({ notifications: { eink: { default_targets: ["hall_display"] } } });
    await ensureDefaultTemplate(env.ctx);
    for (const id of ["hall_display", "bedside_display"]) await createSensor(env.ctx, { sensor_id: id, name: id, sensor_type: "eink" });
  });
  after(() => env.close());

  it("renders onto the named targets with the step's expiry", async () => {
    const r = await handler(env.hctx(), message(), spec.config.parse({ targets: ["bedside_display"], expiry_minutes: 45 }));
    assert.equal(r.delivered, true, r.detail);
    const state = await getDeviceState(env.ctx, "bedside_display");
    // The default card's chrome: the level's word above, the time below (T0 in UTC, the test's zone).
    assert.equal(state?.rendered_text, "Reminder\nTime for your tablets\nSunday, November 22 at 10:00 AM");
    assert.equal(state?.expires_at, new Date(T0 + 45 * MIN).toISOString());
    assert.match(r.detail ?? "", /bedside_display/);
  });

  it("without targets uses notifications.eink.default_targets", async () => {
    const r = await handler(env.hctx(), message("Doctor at 3"), spec.config.parse({}));
    assert.equal(r.delivered, true, r.detail);
    assert.match((await getDeviceState(env.ctx, "hall_display"))?.rendered_text ?? "", /^Reminder\nDoctor at 3\n/);
    assert.doesNotMatch((await getDeviceState(env.ctx, "bedside_display"))?.rendered_text ?? "", /Doctor at 3/);
  });

  it("an unknown display or template is not delivered, with the render's reason", async () => {
    const unknown = await handler(env.hctx(), message(), spec.config.parse({ targets: ["garage_display"] }));
    assert.equal(unknown.delivered, false);
    assert.match(unknown.detail ?? "", /unknown sensor\(s\): garage_display/);
    const noTemplate = await handler(env.hctx(), message(), spec.config.parse({ template_id: "Holiday card" }));
    assert.equal(noTemplate.delivered, false);
    assert.match(noTemplate.detail ?? "", /no template named 'Holiday card'/);
    const noId = await handler(env.hctx(), message(), spec.config.parse({ template_id: 999 }));
    assert.match(noId.detail ?? "", /template 999 does not exist/);
  });

  it("in the senior's language (issue 49): the level and the time in German, and in Hindi drawn in Devanagari glyphs, not empty boxes", async () => {
    const rose = await createPerson(env.ctx, { display_name: "Rose", language: "de" });
    try {
      await handler(env.hctx(), message("Zeit für Ihre Tabletten"), spec.config.parse({ targets: ["bedside_display"] }));
      assert.equal((await getDeviceState(env.ctx, "bedside_display"))?.rendered_text, "Erinnerung\nZeit für Ihre Tabletten\nSonntag, 22. November um 10:00");

      await deletePerson(env.ctx, rose.person_id);
      await createPerson(env.ctx, { person_id: "rose_hi", display_name: "Rose", language: "hi" });
      await handler(env.hctx(), message("दवाई लेने का समय", "emergency"), spec.config.parse({ targets: ["bedside_display"] }));
      const state = await getDeviceState(env.ctx, "bedside_display");
      assert.equal(state?.rendered_text, "ज़रूरी\nदवाई लेने का समय\nरविवार, 22 नवंबर को 10:00 am बजे");
      // The check against empty boxes: the card's title region against the same word drawn alone
      // with Noto Sans Devanagari as the first font. A card that fell back to .notdef boxes
      // (rectangle outlines) or drew nothing would miss most of the word's strokes; a card drawing
      // the real glyphs has every stroke within a pixel. The word is Devanagari only, so both fit
      // it at the same size; only the line's middle may sit some pixels apart (see inkDifference).
      assert.ok(
        listFonts().some((f) => f.filename === "NotoSansDevanagari_400Regular.ttf" && f.available),
        "the Devanagari font is installed",
      );
      const title = DEFAULT_TEMPLATE_REGIONS.find((r) => r.name === "title")!;
      const png = (await readImage(env.ctx, state!.image_hash!))!;
      await fs.mkdir(SCREENSHOT_DIR, { recursive: true });
      await fs.writeFile(path.join(SCREENSHOT_DIR, "eink-card-hindi.png"), png);
      const card = await decodePng(png);
      const reference = await decodePng(
        (await renderCard({ background: null, regions: [title], font_filename: "NotoSansDevanagari_400Regular.ttf", color_mode: "rgb" }, { title: "ज़रूरी" }))
          .png,
      );
      const { differ, ink } = inkDifference(card, reference, title);
      assert.ok(ink > 300, `the card's title has ink (${ink} pixels)`);
      assert.ok(differ <= ink / 20, `the card's title is the Devanagari word: ${differ} of ${ink} ink pixels differ`);
    } finally {
      for (const p of await (await import("../../../runtime/household/persons/persons.service")).listPersons(env.ctx)) await deletePerson(env.ctx, p.person_id);
    }
  });
});
