/**
 * Enrollment over real HTTP (multipart) and identification through the person_identification
 * step's care service, with the built-in engine on real photos (face-api's samples): a person
 * enrolled from five crops is identified in the whole frame, the others come back unknown
 * with visitor ids that stay the same in another picture, and a visitor can be named.
 */
import assert from "node:assert/strict";
import type { PersonSighting } from "../../../../runtime/platform/core/event-bus";
import { storeFrame } from "../../../../runtime/household/media/media.service";
import { WorkerFaceEngine } from "../../../../runtime/household/identity/builtin-engine";
import type { ImageFaces } from "../../../../runtime/household/identity/engine";
import { ENROLL_AUGMENTS, faceCrop, sampleFrame } from "../../../support/face-photos";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

async function upload(t: TestApp, personId: string, photos: Array<{ name: string; bytes: Buffer; type?: string }>, key: string = KEYS.admin) {
  const form = new FormData();
  for (const p of photos) form.append("photos", new Blob([p.bytes], { type: p.type ?? "image/jpeg" }), p.name);
  const res = await fetch(`${t.baseUrl}/api/v1/persons/${personId}/enroll`, { method: "POST", headers: { "X-API-Key": key }, body: form });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

describe("identity: enrollment API and identification (built-in engine)", function () {
  this.timeout(180_000);
  let t: TestApp;
  let frame1: Buffer;
  let crops: Buffer[];
  const sightings: PersonSighting[] = [];

  before(async () => {
    t = await startTestApp();
    t.app.ctx.bus.subscribe("person.sighted", (s) => void sightings.push(s));
    frame1 = await sampleFrame(1);
    const probe = new WorkerFaceEngine();
    const faces = ((await probe.detect([frame1]))[0] as ImageFaces).faces;
    await probe.close();
    crops = await Promise.all(ENROLL_AUGMENTS.map((a) => faceCrop(frame1, faces[0].bbox, a)));
    assert.equal((await t.post("/api/v1/persons", { person_id: "rose", display_name: "Grandma Rose" })).status, 201);
  });
  after(() => t?.close());

  const photos = (bufs: Buffer[]) => bufs.map((bytes, i) => ({ name: `rose-${i + 1}.jpg`, bytes }));

  it("refuses bad photos with 422 naming the photo, and stores nothing", async () => {
    const notImage = await upload(t, "rose", [...photos(crops.slice(0, 4)), { name: "notes.txt", bytes: Buffer.from("hello"), type: "text/plain" }]);
    assert.equal(notImage.status, 422);
    assert.match(notImage.body.detail, /notes\.txt/);
    const group = await upload(t, "rose", [...photos(crops.slice(0, 4)), { name: "party.jpg", bytes: frame1 }]);
    assert.equal(group.status, 422);
    assert.match(group.body.detail, /party\.jpg.*3 faces/);
    const blank = await (
      await import("sharp")
    )
      .default({ create: { width: 320, height: 240, channels: 3, background: "#8899aa" } })
      .jpeg()
      .toBuffer();
    const noFace = await upload(t, "rose", [...photos(crops.slice(0, 4)), { name: "wall.jpg", bytes: blank }]);
    assert.equal(noFace.status, 422);
    assert.match(noFace.body.detail, /no face found in 'wall\.jpg'/);
    // Every refused photo is named at once, each with its reason.
    const both = await upload(t, "rose", [...photos(crops.slice(0, 3)), { name: "wall.jpg", bytes: blank }, { name: "party.jpg", bytes: frame1 }]);
    assert.equal(both.status, 422);
    assert.deepEqual(both.body.detail.split("; "), [
      "photos: no face found in 'wall.jpg'",
      "photos: 'party.jpg' shows 3 faces (each photo must show exactly one)",
    ]);
    const tooMany = await upload(t, "rose", photos([...crops, ...crops, crops[0]]));
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.body.detail, /at most 10 photos/);
    const tooFew = await upload(t, "rose", photos(crops.slice(0, 2)));
    assert.equal(tooFew.status, 422);
    const json = await t.post("/api/v1/persons/rose/enroll", { photos: [] });
    assert.equal(json.status, 422);
    assert.equal((await t.get("/api/v1/persons/rose/enrollment")).status, 404);
    assert.equal((await upload(t, "nobody", photos(crops))).status, 404);
  });

  it("only an admin enrolls", async () => {
    assert.equal((await upload(t, "rose", photos(crops), KEYS.caregiver)).status, 403);
  });

  it("enrolls from five real photos and shows the enrollment", async () => {
    const res = await upload(t, "rose", photos(crops));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.embedding_count, 5);
    const e = await t.get("/api/v1/persons/rose/enrollment", KEYS.caregiver);
    assert.equal(e.status, 200);
    assert.equal(e.body.embedding_count, 5);
    assert.ok(e.body.created_at);
    const enrolled = await t.get("/api/v1/persons/enrolled");
    assert.deepEqual(
      enrolled.body.map((p: any) => p.person_id),
      ["rose"],
    );
    const list = await t.get("/api/v1/persons");
    assert.equal(list.body.find((p: any) => p.person_id === "rose").enrollment_status, "enrolled");
  });

  it("identifies the person in a frame; the others are unknown visitors with stable ids", async () => {
    // Taken a minute before it is identified: the sightings say when Rose was there, not when careflow looked.
    const takenAt = new Date(Date.now() - 60_000).toISOString();
    const stored = await storeFrame(t.app.ctx, { sensor_id: "kitchen_cam", room_name: "kitchen", bytes: frame1, captured_at: takenAt });
    const services = t.app.services;
    const signal = new AbortController().signal;
    const r = await services.identity.identify(
      { media_paths: [stored.path], sensor_id: "kitchen_cam", room_name: "kitchen", include_annotated_image: true, include_motion: false },
      signal,
    );
    assert.ok(r.ok);
    const dets = r.value.person_detections;
    assert.equal(dets.length, 3);
    const rose = dets.filter((d) => d.person_id === "rose");
    assert.equal(rose.length, 1);
    assert.equal(rose[0].identity, "Grandma Rose");
    assert.equal(rose[0].name, "Grandma Rose");
    assert.ok(rose[0].confidence >= 0.4);
    const others = dets.filter((d) => d.person_id !== "rose");
    assert.ok(others.every((d) => d.identity === "unknown" && d.person_id === null && /^visitor-\d+$/.test(d.visitor_id ?? "")));
    assert.equal(r.value.annotated_images.length, 1);
    assert.ok(sightings.some((s) => s.person_id === "rose" && !s.visitor && s.sensor_id === "kitchen_cam" && s.at === Date.parse(takenAt)));
    assert.equal(sightings.filter((s) => s.visitor).length, 2);

    // Another picture of the same people (larger, brighter): the same visitor ids.
    const sharp = (await import("sharp")).default;
    const again = await sharp(await sampleFrame(1, 800))
      .modulate({ brightness: 1.1 })
      .jpeg()
      .toBuffer();
    const stored2 = await storeFrame(t.app.ctx, { sensor_id: "kitchen_cam", room_name: "kitchen", bytes: again });
    const r2 = await services.identity.identify(
      { media_paths: [stored2.path], sensor_id: "kitchen_cam", room_name: "kitchen", include_annotated_image: false, include_motion: false },
      signal,
    );
    assert.ok(r2.ok);
    assert.deepEqual(
      r2.value.person_detections
        .map((d) => d.visitor_id)
        .filter(Boolean)
        .sort(),
      others.map((d) => d.visitor_id).sort(),
    );
    const visitors = await t.get("/api/v1/visitors", KEYS.caregiver);
    assert.equal(visitors.body.length, 2);
    assert.ok(visitors.body.every((v: any) => v.sighting_count === 2));

    // target_persons: only Rose is reported.
    const r3 = await services.identity.identify(
      {
        media_paths: [stored.path],
        sensor_id: "kitchen_cam",
        room_name: "kitchen",
        target_persons: ["rose"],
        include_annotated_image: false,
        include_motion: false,
      },
      signal,
    );
    assert.ok(r3.ok);
    assert.deepEqual(
      r3.value.person_detections.map((d) => d.person_id),
      ["rose"],
    );
  });

  it("a caregiver's admin names a visitor: a new person with the visitor's faces", async () => {
    const v = (await t.get("/api/v1/visitors")).body[0];
    const named = await t.post(`/api/v1/visitors/${v.visitor_id}/name`, { display_name: "Neighbour Ann" });
    assert.equal(named.status, 200, JSON.stringify(named.body));
    assert.equal(named.body.person_id, "neighbour_ann");
    assert.ok(named.body.embedding_count >= 1);
    assert.equal((await t.get(`/api/v1/visitors/${v.visitor_id}`)).status, 404);
    const stored = await storeFrame(t.app.ctx, { sensor_id: "kitchen_cam", room_name: "kitchen", bytes: frame1 });
    const r = await t.app.services.identity.identify(
      { media_paths: [stored.path], sensor_id: "kitchen_cam", room_name: "kitchen", include_annotated_image: false, include_motion: false },
      new AbortController().signal,
    );
    assert.ok(r.ok);
    assert.ok(r.value.person_detections.some((d) => d.person_id === "neighbour_ann" && d.identity === "Neighbour Ann"));
  });

  it("removes an enrollment", async () => {
    assert.equal((await t.request("DELETE", "/api/v1/persons/rose/enrollment")).status, 204);
    assert.equal((await t.get("/api/v1/persons/rose/enrollment")).status, 404);
    assert.equal((await t.get("/api/v1/persons/rose")).body.enrolled, false);
  });
});
