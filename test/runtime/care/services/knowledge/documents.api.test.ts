/**
 * `/api/v1/knowledge/documents` over HTTP: create with photos (multipart), list and its
 * filters, detail, patch (a text change re-chunks), the status machine and its 409s, the hard
 * delete refused while a card or quiz uses the document, the photos' endpoints, the upload
 * checks (type from the bytes, size, pixels from the header: a decompression bomb is a 413),
 * photos' descriptions at upload (searched as passages) and the text sent as a .txt or .md file.
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { heicHeader, makeDocument, png, pngBomb, sendForm, webp } from "./knowledge-support";

const DOCS = "/api/v1/knowledge/documents";
const HEATER =
  "The new heater is in the living room.\n\nTo switch it on, press the red button once. It clicks.\n\nTo switch it off, hold the red button for three seconds.";

describe("knowledge documents API", function () {
  this.timeout(30_000);
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ settings: { knowledge: { max_upload_bytes: 200_000, max_pixels: 4_000_000, chunk_size_tokens: 20, chunk_overlap_tokens: 0 } } });
  });
  after(() => t?.close());

  it("creates a document from a form with tags and photos; the detail shows the photos with signed URLs and the chunk count", async () => {
    const res = await sendForm(t, "POST", DOCS, { title: "The heater", source_text: HEATER, tags: "home, heater" }, [
      { field: "images", bytes: await png() },
      { field: "images[]", bytes: await webp(), type: "image/webp", name: "b.webp" },
    ]);
    assert.equal(res.status, 201, res.text);
    const doc = res.body;
    assert.equal(doc.title, "The heater");
    assert.deepEqual(doc.tags, ["home", "heater"]);
    assert.equal(doc.status, "chunked");
    assert.equal(doc.created_by, "test admin");
    assert.ok(doc.chunk_count >= 3, `chunks: ${doc.chunk_count}`);
    assert.deepEqual(
      doc.images.map((i: any) => [i.mime_type, i.width, i.height, i.ord]),
      [
        ["image/png", 40, 30, 0],
        ["image/webp", 40, 30, 1],
      ],
    );
    // The URL serves the photo without a key (its signature is the credential).
    const photo = await fetch(t.baseUrl + doc.images[0].url);
    assert.equal(photo.status, 200);
    assert.equal(photo.headers.get("content-type"), "image/png");
    assert.deepEqual(Buffer.from(await photo.arrayBuffer()), await png());

    const detail = await t.get(`${DOCS}/${doc.id}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.source_text, HEATER);
    assert.equal(detail.body.chunk_count, doc.chunk_count);

    const chunks = await t.get(`${DOCS}/${doc.id}/chunks`);
    assert.equal(chunks.status, 200);
    assert.equal(chunks.body.items.length, doc.chunk_count);
    assert.equal(chunks.body.items[0].text, "The new heater is in the living room.");
  });

  it("takes tags as a JSON list too, and a JSON body without photos", async () => {
    const form = await sendForm(t, "POST", DOCS, { title: "Anna", source_text: "Anna visits on Sundays.", tags: '["family", "Anna"]' });
    assert.equal(form.status, 201, form.text);
    assert.deepEqual(form.body.tags, ["family", "Anna"]);
    const json = await t.post(DOCS, { title: "Tom", source_text: "Tom calls on Fridays.", tags: ["family"] });
    assert.equal(json.status, 201, json.text);
    assert.deepEqual(json.body.tags, ["family"]);
    assert.deepEqual(json.body.images, []);
  });

  it("lists with the status, tag and q filters, paged", async () => {
    const a = await makeDocument(t, "Garden gate", "The garden gate sticks; lift it a little.", "garden");
    await makeDocument(t, "Bins", "The bins go out on Tuesday evening.", "garden, chores", true);
    const all = await t.get(`${DOCS}?limit=2`);
    assert.equal(all.status, 200);
    assert.equal(all.body.items.length, 2);
    assert.equal(all.body.limit, 2);
    assert.ok(all.body.total >= 5);
    assert.equal(all.body.items[0].source_text, undefined, "the list leaves the text out");
    const garden = await t.get(`${DOCS}?tag=GARDEN`);
    assert.deepEqual(garden.body.items.map((d: any) => d.title).sort(), ["Bins", "Garden gate"]);
    const approved = await t.get(`${DOCS}?status=approved&tag=garden`);
    assert.deepEqual(
      approved.body.items.map((d: any) => d.title),
      ["Bins"],
    );
    const q = await t.get(`${DOCS}?q=lift%20it`);
    assert.deepEqual(
      q.body.items.map((d: any) => d.id),
      [a.id],
    );
    const bad = await t.get(`${DOCS}?status=gone`);
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /status/);
    const tooMany = await t.get(`${DOCS}?limit=201`);
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.body.detail, /limit/);
  });

  it("refuses bad fields with a 422 naming the field", async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ source_text: "x" }, /^title: required/],
      [{ title: "   " }, /^title: must not be empty/],
      [{ title: "x".repeat(201) }, /^title: at most 200/],
      [{ title: "T", tags: "[1, 2]" }, /^tags: every tag must be text/],
      [{ title: "T", tags: "[oops" }, /^tags: not a JSON list/],
      [{ title: "T", colour: "red" }, /^colour: unknown field/],
    ];
    for (const [fields, detail] of cases) {
      const res = await sendForm(t, "POST", DOCS, fields);
      assert.equal(res.status, 422, `${JSON.stringify(fields)}: ${res.text}`);
      assert.match(res.body.detail, detail);
    }
    const notForm = await t.request("POST", DOCS, { rawBody: "hello", headers: { "content-type": "text/plain" } });
    assert.equal(notForm.status, 422);
    assert.match(notForm.body.detail, /^body:/);
  });

  it("checks photos from their bytes: type, upload size (413) and pixels from the header (a decompression bomb is a 413, never decoded)", async () => {
    const text = await sendForm(t, "POST", DOCS, { title: "T" }, [{ field: "images", bytes: Buffer.from("not an image at all"), type: "image/png" }]);
    assert.equal(text.status, 422);
    assert.match(text.body.detail, /^images\[0\]: not an allowed image/);
    const gif = await sendForm(t, "POST", DOCS, { title: "T" }, [
      { field: "images", bytes: Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1"), type: "image/gif" },
    ]);
    assert.equal(gif.status, 422);
    assert.match(gif.body.detail, /JPEG, PNG, WebP or HEIC/);
    const big = await sendForm(t, "POST", DOCS, { title: "T" }, [{ field: "images", bytes: Buffer.alloc(200_001, 1) }]);
    assert.equal(big.status, 413);
    assert.match(big.body.detail, /knowledge\.max_upload_bytes/);

    const bomb = await pngBomb(100_000, 100_000);
    assert.ok(bomb.length < 200, "a few bytes");
    const before = process.memoryUsage().rss;
    const res = await sendForm(t, "POST", DOCS, { title: "Bomb" }, [{ field: "images", bytes: bomb }]);
    assert.equal(res.status, 413, res.text);
    assert.match(res.body.detail, /^images\[0\]: 100000x100000 is 10000000000 pixels, more than knowledge\.max_pixels \(4000000\)/);
    assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, "nothing was decoded");
    // Nothing of a refused upload is kept.
    const list = await t.get(`${DOCS}?q=Bomb`);
    assert.equal(list.body.total, 0);

    // HEIC is taken by its header (its size from the ispe box), and stored as it is.
    const heic = await sendForm(t, "POST", DOCS, { title: "Photo from the phone" }, [
      { field: "images", bytes: heicHeader(4032, 3024), type: "image/heic", name: "a.heic" },
    ]);
    assert.equal(heic.status, 413, "12 Mpx is more than this test's max_pixels");
    const small = await sendForm(t, "POST", DOCS, { title: "Photo from the phone" }, [
      { field: "images", bytes: heicHeader(1600, 1200), type: "image/heic", name: "a.heic" },
    ]);
    assert.equal(small.status, 201, small.text);
    assert.deepEqual([small.body.images[0].mime_type, small.body.images[0].width, small.body.images[0].height], ["image/heic", 1600, 1200]);
    const served = await fetch(t.baseUrl + small.body.images[0].url);
    assert.equal(served.headers.get("content-type"), "image/heic");
  });

  it("patches title and tags, and a text change re-chunks and sends an approved document back to review", async () => {
    const doc = await makeDocument(t, "Keys", "The spare key is under the blue pot.", "home", true);
    assert.equal(doc.status, "approved");
    const renamed = await t.request("PATCH", `${DOCS}/${doc.id}`, { body: { title: "Spare key", tags: "home,keys" } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.title, "Spare key");
    assert.deepEqual(renamed.body.tags, ["home", "keys"]);
    assert.equal(renamed.body.status, "approved", "no text change: still approved");
    const text = "The spare key is with Mrs. Huber next door, in the yellow house.\n\nShe is home every afternoon after lunch.";
    const changed = await t.request("PATCH", `${DOCS}/${doc.id}`, { body: { source_text: text } });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.status, "chunked");
    assert.equal(changed.body.approved_at, null);
    const chunks = await t.get(`${DOCS}/${doc.id}/chunks`);
    assert.deepEqual(
      chunks.body.items.map((c: any) => c.text),
      ["The spare key is with Mrs. Huber next door, in the yellow house.", "She is home every afternoon after lunch."],
    );
    const bad = await t.request("PATCH", `${DOCS}/${doc.id}`, { body: { status: "approved" } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /^status: unknown field/);
    assert.equal((await t.request("PATCH", `${DOCS}/999999`, { body: { title: "x" } })).status, 404);
  });

  it("moves through the statuses, answering 409 with what to do for a transition that is not allowed", async () => {
    const empty = await sendForm(t, "POST", DOCS, { title: "Photos only" }, [{ field: "images", bytes: await png(10, 10, 3) }]);
    assert.equal(empty.body.status, "uploaded");
    const noText = await t.post(`${DOCS}/${empty.body.id}/approve`);
    assert.equal(noText.status, 409);
    assert.match(noText.body.detail, /has no text to search yet \(status uploaded\): add source_text before approving it/);

    const doc = await makeDocument(t, "Doctor", "Dr. Weber's practice opens at eight.");
    const id = doc.id;
    const approved = await t.post(`${DOCS}/${id}/approve`);
    assert.equal(approved.status, 200);
    assert.equal(approved.body.status, "approved");
    assert.equal(approved.body.approved_by, "test admin");
    assert.equal((await t.post(`${DOCS}/${id}/approve`)).body.detail, `Document ${id} is already approved`);
    assert.match((await t.post(`${DOCS}/${id}/restore`)).body.detail, /is not archived \(status approved\): only an archived document can be restored/);
    const archived = await t.post(`${DOCS}/${id}/archive`, undefined, KEYS.caregiver);
    assert.equal(archived.status, 200);
    assert.equal(archived.body.status, "archived");
    assert.equal((await t.post(`${DOCS}/${id}/archive`)).status, 409);
    for (const action of ["approve", "reembed"]) {
      const res = await t.post(`${DOCS}/${id}/${action}`);
      assert.equal(res.status, 409);
      assert.match(res.body.detail, new RegExp(`^Document ${id} is archived: restore it before`));
    }
    const patch = await t.request("PATCH", `${DOCS}/${id}`, { body: { title: "x" } });
    assert.equal(patch.status, 409);
    const restored = await t.post(`${DOCS}/${id}/restore`);
    assert.equal(restored.body.status, "chunked", "restored documents are approved again before they are searched");
    const reembed = await t.post(`${DOCS}/${id}/reembed`);
    assert.equal(reembed.status, 200);
    assert.equal(reembed.body.chunk_count, 1);
    assert.equal((await t.post(`${DOCS}/424242/approve`)).status, 404);
  });

  it("attaches, patches and deletes photos", async () => {
    const doc = await makeDocument(t, "Grandchildren", "Lena is 7 and Max is 4.");
    const added = await sendForm(
      t,
      "POST",
      `${DOCS}/${doc.id}/images`,
      { alt_text: "Lena at the lake" },
      [{ field: "image", bytes: await png(20, 20, 9) }],
      KEYS.caregiver,
    );
    assert.equal(added.status, 201, added.text);
    assert.equal(added.body.alt_text, "Lena at the lake");
    assert.equal(added.body.ord, 0);
    const second = await sendForm(t, "POST", `${DOCS}/${doc.id}/images`, { ord: "5" }, [{ field: "image", bytes: await png(20, 20, 10) }]);
    assert.equal(second.body.ord, 5);
    const none = await sendForm(t, "POST", `${DOCS}/${doc.id}/images`, { alt_text: "x" });
    assert.equal(none.status, 422);
    assert.match(none.body.detail, /^image: a file is required/);
    const patched = await t.request("PATCH", `${DOCS}/${doc.id}/images/${added.body.id}`, { body: { alt_text: "Lena, 7", ord: 9 }, key: KEYS.caregiver });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual([patched.body.alt_text, patched.body.ord], ["Lena, 7", 9]);
    const badOrd = await t.request("PATCH", `${DOCS}/${doc.id}/images/${added.body.id}`, { body: { ord: -1 } });
    assert.equal(badOrd.status, 422);
    assert.match(badOrd.body.detail, /^ord:/);
    const detail = await t.get(`${DOCS}/${doc.id}`);
    assert.deepEqual(
      detail.body.images.map((i: any) => i.id),
      [second.body.id, added.body.id],
      "in ord order",
    );
    const del = await t.request("DELETE", `${DOCS}/${doc.id}/images/${second.body.id}`, { key: KEYS.caregiver });
    assert.equal(del.status, 204);
    assert.equal((await t.request("DELETE", `${DOCS}/${doc.id}/images/${second.body.id}`)).status, 404);
    assert.equal((await t.get(`${DOCS}/${doc.id}`)).body.images.length, 1);
  });

  it("takes each photo's description at upload, shows it with the photo, and searches it as a passage of its own", async () => {
    const res = await sendForm(
      t,
      "POST",
      DOCS,
      { title: "Garden photos", source_text: "Photos from the summer.", image_descriptions: '["Leo on his red bicycle", ""]' },
      [
        { field: "images", bytes: await png(20, 20, 30) },
        { field: "images", bytes: await png(20, 20, 31) },
      ],
    );
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(
      res.body.images.map((i: any) => i.alt_text),
      ["Leo on his red bicycle", ""],
    );
    const chunks = (await t.get(`${DOCS}/${res.body.id}/chunks`)).body.items.map((c: any) => c.text);
    assert.deepEqual(chunks, ["Photos from the summer.", "Photo: Leo on his red bicycle"], "one passage a described photo, after the text");
    await t.post(`${DOCS}/${res.body.id}/approve`);
    const asked = await t.post("/api/v1/knowledge/query", { query: "Who has a red bicycle?" });
    assert.equal(asked.body.passages[0].text, "Photo: Leo on his red bicycle");

    // One photo: a plain text is its description. A changed description is searched at once.
    const one = await sendForm(t, "POST", DOCS, { title: "Rose", image_descriptions: "Rose at her 80th birthday" }, [
      { field: "image", bytes: await png(20, 20, 32) },
    ]);
    assert.equal(one.status, 201, one.text);
    assert.equal(one.body.images[0].alt_text, "Rose at her 80th birthday");
    assert.equal(one.body.status, "chunked", "a photo's description alone is something to search");
    await t.request("PATCH", `${DOCS}/${one.body.id}/images/${one.body.images[0].id}`, { body: { alt_text: "Rose with the cake" } });
    assert.deepEqual(
      (await t.get(`${DOCS}/${one.body.id}/chunks`)).body.items.map((c: any) => c.text),
      ["Photo: Rose with the cake"],
    );

    for (const [value, detail] of [
      ['["a", "b"]', /^image_descriptions: 2 descriptions for 1 photo/],
      ["[1]", /^image_descriptions\[0\]: must be text/],
      ["[oops", /^image_descriptions: not a JSON list/],
      [JSON.stringify(["x".repeat(1001)]), /^image_descriptions\[0\]: at most 1000 characters/],
    ] as const) {
      const bad = await sendForm(t, "POST", DOCS, { title: "Bad", image_descriptions: value }, [{ field: "images", bytes: await png(20, 20, 33) }]);
      assert.equal(bad.status, 422, `${value}: ${bad.text}`);
      assert.match(bad.body.detail, detail);
    }
  });

  it("takes the text as a .txt or .md file, named after the file when no title is given; a file that is not text is a 422 naming source_file", async () => {
    const md = await sendForm(t, "POST", DOCS, { tags: "home" }, [
      { field: "source_file", bytes: Buffer.from("\ufeff# Heater\r\n\r\nTurn the knob right for warmer.\r\n"), type: "text/markdown", name: "The heater.md" },
    ]);
    assert.equal(md.status, 201, md.text);
    assert.equal(md.body.title, "The heater");
    assert.equal(md.body.source_text, "# Heater\n\nTurn the knob right for warmer.\n");
    assert.deepEqual(md.body.tags, ["home"]);
    const txt = await sendForm(t, "POST", DOCS, { title: "Pharmacy" }, [
      { field: "source_file", bytes: Buffer.from("The pharmacy delivers on Mondays."), type: "application/octet-stream", name: "notes.txt" },
    ]);
    assert.equal(txt.status, 201, txt.text);
    assert.deepEqual([txt.body.title, txt.body.source_text, txt.body.status], ["Pharmacy", "The pharmacy delivers on Mondays.", "chunked"]);

    const file = (bytes: Buffer, name: string, type = "text/plain") => ({ field: "source_file", bytes, name, type });
    for (const [fields, files, detail] of [
      [{}, [file(await png(), "photo.png", "image/png")], /^source_file: 'photo\.png' is not a text file/],
      [{}, [file(Buffer.from([0xff, 0xfe, 0x41, 0x00]), "utf16.txt")], /^source_file: not UTF-8 text/],
      [{}, [file(Buffer.from("a\u0000b"), "nul.txt")], /^source_file: not a text file/],
      [{}, [file(Buffer.from("  \n"), "empty.txt")], /^source_file: the file is empty/],
      [{ source_text: "typed" }, [file(Buffer.from("filed"), "a.txt")], /^source_file: send the text or a text file, not both/],
      [{}, [file(Buffer.from("a"), "a.txt"), file(Buffer.from("b"), "b.txt")], /^source_file: one text file at a time/],
    ] as const) {
      const bad = await sendForm(t, "POST", DOCS, { ...fields }, [...files]);
      assert.equal(bad.status, 422, bad.text);
      assert.match(bad.body.detail, detail);
    }
    const big = await sendForm(t, "POST", DOCS, {}, [file(Buffer.alloc(200_001, 0x61), "big.txt")]);
    assert.equal(big.status, 413, "knowledge.max_upload_bytes holds for a text file too");
    assert.match(big.body.detail, /^source_file: larger than knowledge\.max_upload_bytes/);
    const doc = await makeDocument(t, "Photo only", "Text.");
    const stray = await sendForm(t, "POST", `${DOCS}/${doc.id}/images`, {}, [file(Buffer.from("a"), "a.txt")]);
    assert.equal(stray.status, 422);
    assert.match(stray.body.detail, /^source_file: unexpected file/);
  });

  it("hard-deletes a document nothing uses, and refuses (409 naming them) while a card or quiz uses it", async () => {
    const free = await makeDocument(t, "Old note", "Nothing important.");
    assert.equal((await t.request("DELETE", `${DOCS}/${free.id}`, { key: KEYS.caregiver })).status, 403, "the hard delete is the admin's");
    assert.equal((await t.request("DELETE", `${DOCS}/${free.id}`)).status, 204);
    assert.equal((await t.get(`${DOCS}/${free.id}`)).status, 404);

    const used = await makeDocument(t, "The heater", HEATER);
    const db = t.app.ctx.db;
    const at = new Date().toISOString();
    const row = { document_id: used.id, title: "The heater", body_text: "Press the red button.", created_by: "t", created_at: at, updated_at: at };
    const [card] = await db("info_cards").insert(row).returning("id");
    const [quiz] = await db("quizzes").insert({ document_id: used.id, title: "Heater quiz", created_by: "t", created_at: at, updated_at: at }).returning("id");
    const cardId = typeof card === "object" ? card.id : card;
    const quizId = typeof quiz === "object" ? quiz.id : quiz;
    const res = await t.request("DELETE", `${DOCS}/${used.id}`);
    assert.equal(res.status, 409);
    assert.equal(res.body.detail, `Document ${used.id} is used by info card ${cardId} 'The heater' and quiz ${quizId} 'Heater quiz'; archive it instead`);
    // Archived cards and quizzes no longer hold it.
    await db("info_cards").where({ id: cardId }).update({ status: "archived" });
    await db("quizzes").where({ id: quizId }).update({ status: "archived" });
    assert.equal((await t.request("DELETE", `${DOCS}/${used.id}`)).status, 204);
  });
});
