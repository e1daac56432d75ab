/**
 * Motion across a batch's frames with the built-in engine on a real face: the same face moving
 * left to right across two frames is tracked by its centroid, mapped through the camera's
 * movement_map to a room transition; a direction the map lacks gives none. The annotated frame
 * (boxes and names drawn) is stored as media and written to test-output/ to look at.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { directionOf } from "../../../../runtime/household/identity/motion";
import { storeFrame } from "../../../../runtime/household/media/media.service";
import { WorkerFaceEngine } from "../../../../runtime/household/identity/builtin-engine";
import type { ImageFaces } from "../../../../runtime/household/identity/engine";
import { SCREENSHOT_DIR } from "../../../support/browser";
import { faceCrop, sampleFrame } from "../../../support/face-photos";
import { startTestApp, type TestApp } from "../../../support/test-app";

describe("identity: motion through the camera's movement_map, and annotated frames", function () {
  this.timeout(180_000);
  let t: TestApp;
  let face: Buffer;

  before(async () => {
    t = await startTestApp();
    const frame = await sampleFrame(1);
    const probe = new WorkerFaceEngine();
    const faces = ((await probe.detect([frame]))[0] as ImageFaces).faces;
    await probe.close();
    face = await sharp(await faceCrop(frame, faces[0].bbox, { scale: 1 }))
      .resize({ width: 160 })
      .jpeg()
      .toBuffer();
    const kitchen = (await t.post("/api/v1/rooms", { name: "kitchen" })).body.id;
    const res = await t.post("/api/v1/sensors", {
      sensor_id: "door_cam",
      sensor_type: "camera",
      room_id: kitchen,
      config_json: { movement_map: { "left-to-right": "entering", "right-to-left": "exiting" } },
    });
    assert.equal(res.status, 201, res.text);
  });
  after(() => t?.close());

  /** The face pasted on a plain 640x480 frame at `left`. */
  const frameWithFaceAt = (left: number) =>
    sharp({ create: { width: 640, height: 480, channels: 3, background: "#7a8088" } })
      .composite([{ input: face, left, top: 140 }])
      .jpeg()
      .toBuffer();

  const identify = async (lefts: number[], annotate = false) => {
    const paths = [];
    for (const left of lefts)
      paths.push((await storeFrame(t.app.ctx, { sensor_id: "door_cam", room_name: "kitchen", bytes: await frameWithFaceAt(left) })).path);
    const r = await t.app.services.identity.identify(
      { media_paths: paths, sensor_id: "door_cam", room_name: "kitchen", include_annotated_image: annotate, include_motion: true },
      new AbortController().signal,
    );
    assert.ok(r.ok, JSON.stringify(r));
    return r.value;
  };

  it("classifies directions by centroid and box size", () => {
    const at = (frame: number, x: number, size = 100) => ({ frame, bbox: [x, 100, x + size, 100 + size], width: 640 });
    assert.equal(directionOf([at(0, 50), at(1, 400)]), "left-to-right");
    assert.equal(directionOf([at(0, 400), at(1, 50)]), "right-to-left");
    assert.equal(directionOf([at(0, 200, 80), at(1, 200, 140)]), "towards-camera");
    assert.equal(directionOf([at(0, 200, 140), at(1, 200, 80)]), "away-from-camera");
    assert.equal(directionOf([at(0, 200), at(1, 205)]), "stationary");
    assert.equal(directionOf([at(0, 200)]), null);
  });

  it("maps a face moving left to right into the kitchen as 'entering', and right to left as leaving it", async () => {
    const entering = await identify([40, 440]);
    assert.equal(entering.room_transitions.length, 1, JSON.stringify(entering));
    const [tr] = entering.room_transitions;
    assert.equal(tr.direction_raw, "left-to-right");
    assert.equal(tr.semantic, "entering");
    assert.equal(tr.to_room_name, "kitchen");
    assert.equal(tr.sensor_id, "door_cam");
    assert.match(tr.person_id, /^visitor-\d+$/, "an unknown face still moves: as its visitor");
    const leaving = (await identify([440, 40])).room_transitions[0];
    assert.equal(leaving.semantic, "exiting");
    assert.equal(leaving.from_room_name, "kitchen");
    assert.equal(leaving.to_room_name, null);
  });

  it("gives no transition for a direction the map lacks (towards the camera)", async () => {
    const r = await identify([240, 240]);
    assert.deepEqual(
      r.room_transitions.filter((x) => x.direction_raw !== "stationary"),
      [],
    );
    assert.deepEqual(r.room_transitions, [], "stationary is not in this camera's map");
  });

  it("stores the annotated frame as media: the frame with the face boxed and named", async () => {
    const r = await identify([240], true);
    assert.equal(r.annotated_images.length, 1);
    const bytes = fs.readFileSync(path.join(t.app.ctx.dataDir, r.annotated_images[0]));
    const meta = await sharp(bytes).metadata();
    assert.deepEqual([meta.width, meta.height], [640, 480]);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await sharp(bytes).png().toFile(path.join(SCREENSHOT_DIR, "40-annotated-frame.png"));
    // The box is drawn: pixels along the face's left edge differ from the plain background.
    const plain = await frameWithFaceAt(240);
    const a = await sharp(bytes).raw().toBuffer();
    const b = await sharp(plain).raw().toBuffer();
    let differing = 0;
    for (let i = 0; i < a.length; i += 3) if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 90) differing++;
    assert.ok(differing > 300, `${differing} pixels changed by the drawing`);
  });
});
