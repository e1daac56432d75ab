/**
 * Face identification with the built-in engine (face-api on TensorFlow.js WebAssembly, worker
 * thread), on the sample photos face-api ships. Targets: one 640x480 frame with up to 3 faces
 * p50 < 400 ms; a batch of 5 frames < 1.5 s; enrollment of 5 photos < 5 s; memory added by
 * the model < 350 MB (process RSS after warm runs minus before the engine started).
 * Accuracy: every face of the samples is enrolled from 5 augmented crops and probed with a
 * different crop: true match rate (own id, confidence ≥ 0.4) and false match rate (another
 * id at ≥ 0.4, over all probe/other pairs).
 */
import sharp from "sharp";
import { WorkerFaceEngine } from "../runtime/household/identity/builtin-engine";
import type { ImageFaces } from "../runtime/household/identity/engine";
import { confidenceOf, distance } from "../runtime/household/identity/matching";
import { ENROLL_AUGMENTS, PROBE_AUGMENT, SAMPLE_COUNT, faceCrop, samplePath } from "../test/support/face-photos";
import { median, nowMs, report } from "./support";

const rssMb = (): number => process.memoryUsage().rss / (1024 * 1024);
const frame640 = (n: number): Promise<Buffer> => sharp(samplePath(n)).resize(640, 480, { fit: "cover" }).jpeg({ quality: 90 }).toBuffer();

async function main(): Promise<void> {
  const engine = new WorkerFaceEngine();
  const frames = await Promise.all([1, 2, 3].map(frame640));
  const rss0 = rssMb();
  let t = nowMs();
  await engine.detect([frames[0]]);
  const firstMs = nowMs() - t;
  const single: number[] = [];
  for (let i = 0; i < 24; i++) {
    t = nowMs();
    await engine.detect([frames[i % 3]]);
    single.push(nowMs() - t);
  }
  const batch: number[] = [];
  for (let i = 0; i < 3; i++) {
    t = nowMs();
    await engine.detect([0, 1, 2, 0, 1].map((k) => frames[k]));
    batch.push(nowMs() - t);
  }

  // Accuracy over every face of the samples.
  const gallery: Array<{ id: string; descriptors: number[][]; probe: number[] }> = [];
  const enrollMs: number[] = [];
  for (let n = 1; n <= SAMPLE_COUNT; n++) {
    const frame = await sharp(samplePath(n)).resize({ width: 960 }).jpeg().toBuffer();
    const faces = ((await engine.detect([frame]))[0] as ImageFaces).faces;
    for (const [i, f] of faces.entries()) {
      const crops = await Promise.all(ENROLL_AUGMENTS.map((a) => faceCrop(frame, f.bbox, a)));
      t = nowMs();
      const got = (await engine.detect(crops)) as ImageFaces[];
      enrollMs.push(nowMs() - t);
      const probe = ((await engine.detect([await faceCrop(frame, f.bbox, PROBE_AUGMENT)]))[0] as ImageFaces).faces;
      // A crop that caught a neighbour too is judged by its largest face.
      const main = (fs: ImageFaces["faces"]) => [...fs].sort((a, b) => b.bbox[2] - b.bbox[0] - (a.bbox[2] - a.bbox[0]))[0];
      const descriptors = got.flatMap((g) => (g.faces.length ? [main(g.faces).descriptor] : []));
      if (!probe.length || descriptors.length < 3) continue;
      gallery.push({ id: `s${n}f${i}`, descriptors, probe: main(probe).descriptor });
    }
  }
  const best = (probe: number[], g: (typeof gallery)[number]): number => Math.max(...g.descriptors.map((d) => confidenceOf(distance(probe, d))));
  let trueMatches = 0;
  let falseMatches = 0;
  let pairs = 0;
  for (const p of gallery) {
    const scores = gallery.map((g) => ({ id: g.id, c: best(p.probe, g) })).sort((a, b) => b.c - a.c);
    if (scores[0].id === p.id && scores[0].c >= 0.4) trueMatches++;
    for (const s of scores) {
      if (s.id === p.id) continue;
      pairs++;
      if (s.c >= 0.4) falseMatches++;
    }
  }
  const rssAdded = rssMb() - rss0;
  await engine.close();

  const p50 = median(single);
  const batchMs = median(batch);
  const enroll = median(enrollMs);
  const tmr = gallery.length ? trueMatches / gallery.length : 0;
  const fmr = pairs ? falseMatches / pairs : 0;
  report(
    "identity",
    [
      { measure: "first frame (model load + inference)", value: firstMs, unit: "ms" },
      { measure: "one 640x480 frame, ≤3 faces, p50", value: p50, unit: "ms", target: "< 400", ok: p50 < 400 },
      { measure: "batch of 5 frames", value: batchMs, unit: "ms", target: "< 1500", ok: batchMs < 1500 },
      { measure: "enrollment of 5 photos (median)", value: enroll, unit: "ms", target: "< 5000", ok: enroll < 5000 },
      { measure: "memory added by the model (RSS)", value: rssAdded, unit: "MB", target: "< 350", ok: rssAdded < 350 },
      { measure: `true match rate (${gallery.length} faces)`, value: tmr, unit: "ratio" },
      { measure: `false match rate (${pairs} pairs)`, value: fmr, unit: "ratio" },
    ],
    {
      first_ms: firstMs,
      frame_p50_ms: p50,
      batch5_ms: batchMs,
      enroll5_ms: enroll,
      rss_added_mb: rssAdded,
      faces: gallery.length,
      true_match_rate: tmr,
      false_match_rate: fmr,
    },
  );
}

void main();
