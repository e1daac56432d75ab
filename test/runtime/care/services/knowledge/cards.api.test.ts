/** `/info-cards` over real HTTP: create, list, detail, change, lifecycle, slots rendered into every variant, delete. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { storeObject } from "../../../../../runtime/household/media/media.service";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { bombPng, fetchSigned, gradientJpeg, onlyBlackAndWhite, putPicture } from "./knowledge-test-support";

describe("info cards API", () => {
  let t: TestApp;
  let photo: Buffer;
  before(async () => {
    t = await startTestApp({ settings: { knowledge: { max_upload_bytes: 2_000_000, max_pixels: 20_000_000 } } });
    photo = await gradientJpeg(1600, 1200);
  });
  after(() => t.close());

  const create = async (body: Record<string, unknown>, key: string = KEYS.admin) => t.request("POST", "/api/v1/info-cards", { body, key });

  it("creates a card (a caregiver may), shows it with its layout's empty slots, and lists it by status, tag and document", async () => {
    const res = await create(
      { title: "The new heater", body_text: "Turn the knob to 3 for warm.", layout_id: "single_hero", tags: ["home", "heater"] },
      KEYS.caregiver,
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, "draft");
    assert.equal(res.body.created_by, "test caregiver");
    assert.deepEqual(res.body.tags, ["home", "heater"]);
    assert.equal(res.body.slots.length, 1);
    assert.deepEqual(
      { slot_id: res.body.slots[0].slot_id, filled: res.body.slots[0].filled, variants: res.body.slots[0].variants },
      { slot_id: "hero", filled: false, variants: [] },
    );
    assert.equal(res.body.missing_images, 1);
    await create({ title: "Anna", body_text: "Anna is your granddaughter.", tags: ["family"] });

    const byTag = await t.get("/api/v1/info-cards?tag=heater");
    assert.equal(byTag.status, 200);
    assert.deepEqual(
      byTag.body.items.map((c: { title: string }) => c.title),
      ["The new heater"],
    );
    const paged = await t.get("/api/v1/info-cards?limit=1&offset=1");
    assert.equal(paged.body.total >= 2, true);
    assert.equal(paged.body.items.length, 1);
    assert.equal((await t.get("/api/v1/info-cards?status=approved")).body.items.length, 0);
    assert.equal((await t.get("/api/v1/info-cards?document_id=999")).body.items.length, 0);
    const bad = await t.get("/api/v1/info-cards?limit=500");
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /limit/);
    assert.match((await t.get("/api/v1/info-cards?status=gone")).body.detail, /status/);
  });

  it("answers 422 naming the field for a bad card", async () => {
    const noTitle = await create({ body_text: "x" });
    assert.equal(noTitle.status, 422);
    assert.match(noTitle.body.detail, /title/);
    const layout = await create({ title: "x", body_text: "y", layout_id: "poster" });
    assert.equal(layout.status, 422);
    assert.match(layout.body.detail, /layout_id: unknown layout 'poster'/);
    const quizLayout = await create({ title: "x", body_text: "y", layout_id: "quiz_with_optional_image" });
    assert.match(quizLayout.body.detail, /layout_id: .*not info cards/);
    const extra = await create({ title: "x", body_text: "y", colour: "red" });
    assert.equal(extra.status, 422);
    assert.match(extra.body.detail, /colour/);
    const doc = await create({ title: "x", body_text: "y", document_id: 424242 });
    assert.equal(doc.status, 422);
    assert.equal(doc.body.detail, "document_id: document 424242 not found");
    assert.equal((await t.get("/api/v1/info-cards/99999")).status, 404);
  });

  it("renders a slot's picture into every surface variant: WebP for the web app, a black-and-white PNG for e-ink", async () => {
    const card = (await create({ title: "Hero", body_text: "A picture", layout_id: "single_hero" })).body;
    const res = await putPicture(t, `/api/v1/info-cards/${card.id}/slots/0`, photo, { alt_text: "The heater in the hall" }, KEYS.caregiver);
    assert.equal(res.status, 200, res.text);
    const slot = res.body.slots[0];
    assert.equal(slot.filled, true);
    assert.equal(slot.alt_text, "The heater in the hall");
    assert.equal(res.body.missing_images, 0);
    const pwa = slot.variants.find((v: { surface: string }) => v.surface === "pwa");
    const eink = slot.variants.find((v: { surface: string }) => v.surface === "eink");
    assert.deepEqual([pwa.width, pwa.height, pwa.format, pwa.color_mode, pwa.fit_mode], [1280, 720, "webp", "rgb", "cover"]);
    assert.deepEqual([eink.width, eink.height, eink.format, eink.color_mode], [800, 320, "png", "bw_dither"]);

    const pwaFile = await fetchSigned(t, pwa.url);
    assert.equal(pwaFile.status, 200);
    const pwaMeta = await sharp(pwaFile.bytes).metadata();
    assert.deepEqual([pwaMeta.format, pwaMeta.width, pwaMeta.height], ["webp", 1280, 720]);
    const einkFile = await fetchSigned(t, eink.url);
    const einkMeta = await sharp(einkFile.bytes).metadata();
    assert.deepEqual([einkMeta.format, einkMeta.width, einkMeta.height], ["png", 800, 320]);
    assert.equal(await onlyBlackAndWhite(einkFile.bytes), true);

    // The delivery side reads the same variants.
    const { cardForDelivery } = await import("../../../../../runtime/care/services/knowledge/cards/card-delivery.read");
    const deliverable = await cardForDelivery(t.app.ctx.db, card.id);
    assert.deepEqual(
      deliverable?.slots[0].variants.map((v) => [v.surface, v.width, v.height]),
      [
        ["pwa", 1280, 720],
        ["eink", 800, 320],
      ],
    );
  });

  it("approves only when the layout's min_images are filled (422 saying how many are missing)", async () => {
    const card = (await create({ title: "Two", body_text: "Pictures", layout_id: "gallery_grid_2x2" })).body;
    const refused = await t.post(`/api/v1/info-cards/${card.id}/approve`);
    assert.equal(refused.status, 422);
    assert.match(refused.body.detail, /layout 'gallery_grid_2x2' needs at least 2 images; 2 missing/);
    await putPicture(t, `/api/v1/info-cards/${card.id}/slots/0`, photo);
    const stillOne = await t.post(`/api/v1/info-cards/${card.id}/approve`);
    assert.match(stillOne.body.detail, /1 missing/);
    await putPicture(t, `/api/v1/info-cards/${card.id}/slots/3`, photo);
    const ok = await t.post(`/api/v1/info-cards/${card.id}/approve`, undefined, KEYS.caregiver);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.status, "approved");
    assert.equal(ok.body.approved_by, "test caregiver");
    assert.equal((await t.post(`/api/v1/info-cards/${card.id}/approve`)).status, 409);
    // Approved, it stays deliverable: no clearing or relayout below the layout's minimum.
    const clear = await t.request("DELETE", `/api/v1/info-cards/${card.id}/slots/3`);
    assert.equal(clear.status, 409);
    assert.match(clear.body.detail, /is approved and layout 'gallery_grid_2x2' needs 2 pictures; replace this one \(PUT\)/);
    assert.equal((await t.request("PATCH", `/api/v1/info-cards/${card.id}`, { body: { layout_id: "single_hero" } })).status, 200);
    assert.equal((await t.request("PATCH", `/api/v1/info-cards/${card.id}`, { body: { layout_id: "text_only", title: "Text" } })).status, 200);
  });

  it("draws every picture again for a new layout, and on /rerender", async () => {
    const card = (await create({ title: "Relayout", body_text: "b", layout_id: "single_hero" })).body;
    await putPicture(t, `/api/v1/info-cards/${card.id}/slots/0`, photo);
    const res = await t.request("PATCH", `/api/v1/info-cards/${card.id}`, { body: { layout_id: "side_by_side", title: "Relaid" } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.version, 2);
    const sizes = res.body.slots[0].variants.map((v: { surface: string; width: number; height: number }) => [v.surface, v.width, v.height]);
    assert.deepEqual(sizes, [
      ["pwa", 640, 800],
      ["eink", 400, 480],
    ]);
    const file = await fetchSigned(t, res.body.slots[0].variants[0].url);
    const meta = await sharp(file.bytes).metadata();
    assert.deepEqual([meta.width, meta.height], [640, 800]);
    const again = await t.post(`/api/v1/info-cards/${card.id}/rerender`);
    assert.equal(again.status, 200);
    assert.equal(again.body.slots[0].filled, true);
    // To text_only: no slot left to show, the original kept for a layout with slots.
    const text = await t.request("PATCH", `/api/v1/info-cards/${card.id}`, { body: { layout_id: "text_only" } });
    assert.deepEqual(text.body.slots, []);
    const back = await t.request("PATCH", `/api/v1/info-cards/${card.id}`, { body: { layout_id: "single_hero" } });
    assert.equal(back.body.slots[0].filled, true);
    assert.equal(back.body.slots[0].variants.length, 2);
  });

  it("patches a slot's alt text and crop focus, and clears a slot (its variants gone)", async () => {
    const card = (await create({ title: "Slots", body_text: "b", layout_id: "single_hero" })).body;
    const empty = await t.request("PATCH", `/api/v1/info-cards/${card.id}/slots/0`, { body: { alt_text: "later" } });
    assert.equal(empty.status, 200);
    await putPicture(t, `/api/v1/info-cards/${card.id}/slots/0`, photo);
    const before = (await t.get(`/api/v1/info-cards/${card.id}`)).body.slots[0].variants[0].object_name;
    // The default crop follows the eye (attention, which picks this gradient's top): the bottom differs.
    const patched = await t.request("PATCH", `/api/v1/info-cards/${card.id}/slots/0`, {
      body: { alt_text: "Hall", crop_hints: { focus: "bottom" } },
      key: KEYS.caregiver,
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.slots[0].alt_text, "Hall");
    assert.deepEqual(patched.body.slots[0].crop_hints, { focus: "bottom" });
    assert.notEqual(patched.body.slots[0].variants[0].object_name, before, "a new focus crops differently");
    const bad = await t.request("PATCH", `/api/v1/info-cards/${card.id}/slots/0`, { body: { crop_hints: { focus: "sideways" } } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /crop_hints/);
    const cleared = await t.request("DELETE", `/api/v1/info-cards/${card.id}/slots/0`, { key: KEYS.caregiver });
    assert.equal(cleared.status, 200);
    assert.deepEqual([cleared.body.slots[0].filled, cleared.body.slots[0].variants], [false, []]);
    const { cardForDelivery } = await import("../../../../../runtime/care/services/knowledge/cards/card-delivery.read");
    assert.deepEqual((await cardForDelivery(t.app.ctx.db, card.id))?.slots, []);
    const outside = await putPicture(t, `/api/v1/info-cards/${card.id}/slots/1`, photo);
    assert.equal(outside.status, 404);
    assert.match(outside.body.detail, /layout 'single_hero' has slots 0 to 0/);
  });

  it("refuses a picture that is not allowed, too large, or a decompression bomb, before decoding it", async () => {
    const card = (await create({ title: "Limits", body_text: "b", layout_id: "single_hero" })).body;
    const path = `/api/v1/info-cards/${card.id}/slots/0`;
    const gif = await putPicture(t, path, Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1"), {}, KEYS.admin, "image/gif");
    assert.equal(gif.status, 422);
    assert.match(gif.body.detail, /image: not a JPEG, PNG, WebP or HEIC picture/);
    const big = await putPicture(t, path, Buffer.concat([photo, Buffer.alloc(2_000_001)]));
    assert.equal(big.status, 413);
    assert.match(big.body.detail, /max_upload_bytes/);
    const bomb = await putPicture(t, path, bombPng(100_000, 100_000), {}, KEYS.admin, "image/png");
    assert.equal(bomb.status, 413);
    assert.match(bomb.body.detail, /100000x100000 .* more than knowledge.max_pixels \(20000000\)/);
    // HEIC is allowed, but this box cannot read this one: a 422 that says what to send.
    const heic = await putPicture(
      t,
      path,
      Buffer.concat([Buffer.from("\0\0\0\x18ftypheic\0\0\0\0", "latin1"), Buffer.alloc(64)]),
      {},
      KEYS.admin,
      "image/heic",
    );
    assert.equal(heic.status, 422);
    assert.match(heic.body.detail, /^image: /);
    const none = await t.request("PUT", path, { body: {} });
    assert.equal(none.status, 422);
    assert.match(none.body.detail, /multipart|document_image_id/);
    assert.equal((await t.get(`/api/v1/info-cards/${card.id}`)).body.slots[0].filled, false);
  });

  it("takes a document's image by document_image_id", async () => {
    const objectName = await storeObject(t.app.ctx, photo, "jpg");
    // The document and its image as documents/ would hold them (the slot row refers to the image).
    const now = new Date().toISOString();
    const db = t.app.ctx.db;
    const [doc] = await db("knowledge_documents")
      .insert({ title: "Family", source_text: "Anna", created_by: "t", created_at: now, updated_at: now })
      .returning("id");
    const documentId = Number(typeof doc === "object" ? doc.id : doc);
    const [img] = await db("knowledge_document_images")
      .insert({ document_id: documentId, object_name: objectName, mime_type: "image/jpeg", alt_text: "Anna at the lake", created_at: now })
      .returning("id");
    const imageId = Number(typeof img === "object" ? img.id : img);
    const card = (await create({ title: "Doc", body_text: "b", layout_id: "single_hero" })).body;
    const res = await t.request("PUT", `/api/v1/info-cards/${card.id}/slots/0`, { body: { document_image_id: imageId } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.slots[0].source_image_id, imageId);
    assert.equal(res.body.slots[0].alt_text, "Anna at the lake");
    assert.equal(res.body.slots[0].variants.length, 2);
    const missing = await t.request("PUT", `/api/v1/info-cards/${card.id}/slots/0`, { body: { document_image_id: imageId + 1 } });
    assert.equal(missing.status, 404);
    assert.match(missing.body.detail, new RegExp(`document_image_id: document image ${imageId + 1} not found`));
  });

  it("archives (no edits then), restores to draft, and hard-deletes (admins only)", async () => {
    const card = (await create({ title: "Old", body_text: "b" })).body;
    const archived = await t.post(`/api/v1/info-cards/${card.id}/archive`, undefined, KEYS.caregiver);
    assert.equal(archived.body.status, "archived");
    const edit = await t.request("PATCH", `/api/v1/info-cards/${card.id}`, { body: { title: "New" } });
    assert.equal(edit.status, 409);
    assert.match(edit.body.detail, /archived; restore it first/);
    assert.equal((await t.post(`/api/v1/info-cards/${card.id}/archive`)).status, 409);
    const restored = await t.post(`/api/v1/info-cards/${card.id}/restore`);
    assert.equal(restored.body.status, "draft");
    assert.equal((await t.post(`/api/v1/info-cards/${card.id}/restore`)).status, 409);
    assert.equal((await t.request("DELETE", `/api/v1/info-cards/${card.id}`, { key: KEYS.caregiver })).status, 403);
    assert.equal((await t.request("DELETE", `/api/v1/info-cards/${card.id}`)).status, 204);
    assert.equal((await t.get(`/api/v1/info-cards/${card.id}`)).status, 404);
  });

  it("refuses to hard-delete a card a rule's info_card step uses, naming the rule", async () => {
    const card = (await create({ title: "Morning", body_text: "b" })).body;
    const flows = t.app.ctx.flows;
    const real = flows.snapshot.bind(flows);
    flows.snapshot = async () => {
      const snap = await real();
      return {
        flows: [
          ...snap.flows,
          { id: "tabK", type: "tab", label: "Morning card" },
          { id: "nK", type: "care-info_card", z: "tabK", config: { card_id: card.id } },
        ],
        index: {
          ...snap.index,
          rules: [...snap.index.rules, { id: 7, tab_id: "tabK", webhook_secret: null, webhook_secret_created_at: null, created_at: "", updated_at: "" }],
          steps: [...snap.index.steps, { id: 70, rule_id: 7, node_id: "nK", order: 1 }],
        },
      };
    };
    try {
      const res = await t.request("DELETE", `/api/v1/info-cards/${card.id}`);
      assert.equal(res.status, 409);
      assert.equal(res.body.detail, `Info card ${card.id} is used by rule 7 'Morning card'; archive it instead`);
    } finally {
      flows.snapshot = real;
    }
    assert.equal((await t.request("DELETE", `/api/v1/info-cards/${card.id}`)).status, 204);
  });
});
