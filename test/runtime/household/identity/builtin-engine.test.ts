/**
 * The built-in face engine on real photos (face-api's sample photos): a person enrolled from
 * five augmented crops of one face is identified in a different crop and in the whole frame,
 * and the other faces come back unknown.
 */
import assert from "node:assert/strict";
import { WorkerFaceEngine } from "../../../../runtime/household/identity/builtin-engine";
import { isProblem, type ImageFaces } from "../../../../runtime/household/identity/engine";
import { bestMatch } from "../../../../runtime/household/identity/matching";
import { ENROLL_AUGMENTS, PROBE_AUGMENT, faceCrop, sampleFrame } from "../../../support/face-photos";

describe("identity: the built-in face engine (WebAssembly, worker thread)", function () {
  this.timeout(120_000);
  const engine = new WorkerFaceEngine();
  after(() => engine.close());

  it("is started lazily and answers one result per image, a bad image among them", async () => {
    assert.equal(engine.started, false);
    const frame = await sampleFrame(1);
    const [faces, bad] = await engine.detect([frame, Buffer.from("not an image")]);
    assert.equal(engine.started, true);
    assert.ok(!isProblem(faces));
    assert.equal(faces.faces.length, 3);
    for (const f of faces.faces) {
      assert.equal(f.descriptor.length, 128);
      assert.equal(f.bbox.length, 4);
    }
    assert.ok(isProblem(bad));
    assert.match(bad.error, /not a readable image/);
  });

  it("identifies an enrolled face in a different crop and in the frame; the others are unknown", async () => {
    const frame = await sampleFrame(1);
    const whole = (await engine.detect([frame]))[0] as ImageFaces;
    const target = whole.faces[0];
    const crops = await Promise.all(ENROLL_AUGMENTS.map((a) => faceCrop(frame, target.bbox, a)));
    const enrolled = (await engine.detect(crops)) as ImageFaces[];
    for (const e of enrolled) assert.equal(e.faces.length, 1, "each enrollment crop shows exactly one face");
    const known = enrolled.map((e, i) => ({ id: i, person_id: "rose", visitor_id: null, descriptor: e.faces[0].descriptor, source: null, created_at: "" }));
    const probe = (await engine.detect([await faceCrop(frame, target.bbox, PROBE_AUGMENT)]))[0] as ImageFaces;
    assert.equal(probe.faces.length, 1);
    const m = bestMatch(probe.faces[0].descriptor, known, "person_id");
    assert.ok(m && m.confidence >= 0.4, `the probe crop matches (confidence ${m?.confidence})`);
    for (const [i, f] of whole.faces.entries()) {
      const c = bestMatch(f.descriptor, known, "person_id")?.confidence ?? 0;
      if (i === 0) assert.ok(c >= 0.4, `the enrolled face in the frame matches (${c})`);
      else assert.ok(c < 0.4, `face ${i} of the frame is someone else (${c})`);
    }
  });
});
