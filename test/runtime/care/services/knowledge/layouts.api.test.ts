/** The layouts: the five shipped ones over HTTP, settings extending them, a bad enum stopping the start. */
import assert from "node:assert/strict";
import { buildLayouts } from "../../../../../runtime/care/services/knowledge/layouts/layouts";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";

const extra = {
  id: "family_wall",
  display_name: "Family wall",
  applies_to: "info_card",
  surfaces: ["pwa"],
  min_images: 1,
  max_images: 1,
  image_slots: [{ slot_id: "photo", variants: { pwa: { target_width: 800, target_height: 800, fit_mode: "contain", color_mode: "rgb", format: "png" } } }],
};

describe("knowledge layouts", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ settings: { knowledge: { layouts: [extra], voice_defaults: { quiz_default: "Quiz gently." } } } });
  });
  after(() => t.close());

  it("lists the five shipped layouts and one from settings, filtered by applies_to", async () => {
    const all = await t.get("/api/v1/knowledge/layouts", KEYS.caregiver);
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.map((l: { id: string }) => l.id),
      ["text_only", "single_hero", "side_by_side", "gallery_grid_2x2", "quiz_with_optional_image", "family_wall"],
    );
    const quiz = await t.get("/api/v1/knowledge/layouts?applies_to=quiz");
    assert.deepEqual(
      quiz.body.map((l: { id: string }) => l.id),
      ["quiz_with_optional_image"],
    );
    const bad = await t.get("/api/v1/knowledge/layouts?applies_to=poster");
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /applies_to/);
  });

  it("shows one layout with its slots' variants, and 404 for an unknown one", async () => {
    const hero = await t.get("/api/v1/knowledge/layouts/single_hero");
    assert.equal(hero.status, 200);
    assert.deepEqual(hero.body.image_slots[0].variants.eink, {
      target_width: 800,
      target_height: 320,
      fit_mode: "contain",
      color_mode: "bw_dither",
      format: "png",
    });
    assert.equal((await t.get("/api/v1/knowledge/layouts/family_wall")).body.display_name, "Family wall");
    assert.equal((await t.get("/api/v1/knowledge/layouts/nope")).status, 404);
  });

  it("answers the voice defaults per type, with the settings' override", async () => {
    const res = await t.get("/api/v1/knowledge/voice-defaults", KEYS.caregiver);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ["info_card_default", "interactive_prompt_default", "quiz_default"]);
    assert.equal(res.body.quiz_default, "Quiz gently.");
    assert.match(res.body.info_card_default, /information card/);
  });

  it("fails on an unknown enum value, naming the layout, the field and the value", () => {
    const bad = (over: Record<string, unknown>) => () => buildLayouts([], [{ ...extra, ...over }]);
    assert.throws(bad({ applies_to: "poster" }), /knowledge layout 'family_wall' \(knowledge.layouts\): applies_to: 'poster' is not one of info_card, quiz/);
    assert.throws(bad({ surfaces: ["pwa", "tv"] }), /surfaces.1: 'tv' is not one of pwa, eink/);
    const slot = (v: Record<string, unknown>) => [{ slot_id: "photo", variants: { pwa: { ...extra.image_slots[0].variants.pwa, ...v } } }];
    assert.throws(bad({ image_slots: slot({ fit_mode: "squash" }) }), /image_slots.0.variants.pwa.fit_mode: 'squash' is not one of cover, contain/);
    assert.throws(bad({ image_slots: slot({ color_mode: "sepia" }) }), /color_mode: 'sepia' is not one of rgb, bw_dither/);
    assert.throws(bad({ image_slots: slot({ format: "gif" }) }), /format: 'gif' is not one of webp, png/);
    assert.throws(
      bad({ image_slots: [{ slot_id: "photo", variants: { tv: extra.image_slots[0].variants.pwa } }] }),
      /image_slots.0.variants.tv: unknown field/,
    );
    assert.throws(bad({ image_slots: slot({ color_mode: "bw_dither", format: "webp" }) }), /bw_dither needs format png/);
    assert.throws(bad({ min_images: 2 }), /min_images: 2 is more than max_images 1/);
  });

  it("stops the start when settings hold a bad layout", async () => {
    await assert.rejects(
      startTestApp({
        settings: {
          knowledge: {
            layouts: [{ ...extra, image_slots: [{ slot_id: "photo", variants: { pwa: { ...extra.image_slots[0].variants.pwa, fit_mode: "stretch" } } }] }],
          },
        },
      }),
      /knowledge layout 'family_wall' .*fit_mode: 'stretch' is not one of cover, contain/,
    );
  });
});
