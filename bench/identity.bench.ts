/**
 * Face identification with the built-in engine (face-api on TensorFlow.js WebAssembly, worker
 * thread), on the sample photos face-api ships. Targets (issue 19): one 640x480 frame with up
 * to 3 faces p50 < 400 ms; a batch of 5 frames < 1.5 s; enrollment of 5 photos < 5 s; memory
 * added by the model < 350 MB. `npm run bench -- identity`.
 *
 * Memory, method changed for issue 19: every image this benchmark gives the engine (the timed
 * frames, then the accuracy part's frames, enrollment crops and probes, in the same calls) is
 * given again to a fresh engine in a child process that does nothing else; its RSS is sampled
 * every 25 ms and the figure is the peak minus the RSS before the engine started. Before, the
 * figure was this process's RSS at the end minus before, which also counted the benchmark's own
 * image work (sharp cutting the accuracy crops in this thread): ~100 MB of it was still there
 * after the engine was closed (glibc malloc arenas of sharp's threads). That figure is still
 * printed, without a target. The old engine measured by the new method: 443-449 MB (the old
 * method said 434), so the new one is not the lenient one.
 *
 * Accuracy: every face of the samples is enrolled from 5 augmented crops and probed with a
 * different crop: true match rate (own id the best, confidence ≥ threshold) and false match
 * rate (another id at ≥ threshold, over all probe/other pairs), at the default threshold 0.4
 * and, for reference, at 0.45 and 0.5. The samples are six photos of different groups; two
 * faces of one photo are certainly two people, so those pairs are also counted apart. The 14
 * distinct cross-photo false matches at 0.4 were looked at: 12 are clearly two people, 2 alike
 * enough to be one (counted as true, the rate at 0.4 would be 0.106 instead of 0.118).
 *
 * Measured on the 2-core development machine, 3 runs, load average 1.7-2.3 (this benchmark
 * itself is about 1 of it; other engineers' tests the rest): frame p50 237-251 ms, batch of 5
 * 1.19-1.31 s, enrollment 1.03-1.07 s, memory 290-299 MB (this process: 321-329 MB), 18 faces,
 * true match rate 1, false match rate 0.118 / 0.046 / 0.010 at 0.4 / 0.45 / 0.5. One run at
 * load 3.1 gave p50 294 ms and a batch of 1.61 s: the batch figure has ~15 % headroom on a
 * machine that is not otherwise busy. Before issue 19's work, same method and machine: p50
 * 325-343 ms, batch 1.76-1.78 s, enrollment 1.22-1.26 s, memory 443-449 MB, 17 faces, 0.121.
 * docs/decisions.md "Face identification: speed and memory" says what changed and why.
 */
import { fork } from "node:child_process";
import os from "node:os";
import sharp from "sharp";
import { WorkerFaceEngine } from "../runtime/household/identity/builtin-engine";
import type { ImageFaces } from "../runtime/household/identity/engine";
import { confidenceOf, distance } from "../runtime/household/identity/matching";
import { ENROLL_AUGMENTS, PROBE_AUGMENT, SAMPLE_COUNT, faceCrop, samplePath } from "../test/support/face-photos";
import { median, nowMs, report } from "./support";

const rssMb = (): number => process.memoryUsage().rss / (1024 * 1024);
const frame640 = (n: number): Promise<Buffer> => sharp(samplePath(n)).resize(640, 480, { fit: "cover" }).jpeg({ quality: 90 }).toBuffer();
const THRESHOLDS = [0.4, 0.45, 0.5];

/** The engine, recording every call's images (for the memory run). */
class RecordingEngine extends WorkerFaceEngine {
  readonly calls: Uint8Array[][] = [];
  override detect(images: readonly Uint8Array[]) {
    this.calls.push(images.map((b) => Uint8Array.from(b)));
    return super.detect(images);
  }
}

interface MemoryFigures {
  peak_mb: number;
  end_mb: number;
}

/** The child process of the memory run: the same calls to a fresh engine, nothing else. */
function memoryChild(): void {
  process.once("message", (calls: Uint8Array[][]) => {
    void (async () => {
      const rss0 = rssMb();
      let peak = rss0;
      const timer = setInterval(() => (peak = Math.max(peak, rssMb())), 25);
      const engine = new WorkerFaceEngine();
      for (const images of calls) await engine.detect(images);
      const end = rssMb();
      clearInterval(timer);
      peak = Math.max(peak, end);
      await engine.close();
      process.send?.({ peak_mb: peak - rss0, end_mb: end - rss0 } satisfies MemoryFigures, () => process.exit(0));
    })();
  });
}

function memoryRun(calls: Uint8Array[][]): Promise<MemoryFigures> {
  const child = fork(__filename, ["--memory"], { serialization: "advanced", stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m as MemoryFigures));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the memory run exited with ${code}`)));
    child.send(calls);
  });
}

async function main(): Promise<void> {
  const load0 = os.loadavg()[0];
  const engine = new RecordingEngine();
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
  const gallery: Array<{ id: string; photo: number; descriptors: number[][]; probe: number[] }> = [];
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
      gallery.push({ id: `s${n}f${i}`, photo: n, descriptors, probe: main(probe).descriptor });
    }
  }
  const best = (probe: number[], g: (typeof gallery)[number]): number => Math.max(...g.descriptors.map((d) => confidenceOf(distance(probe, d))));
  const rates = THRESHOLDS.map((threshold) => {
    let trueMatches = 0;
    const pairs = { same: 0, other: 0 };
    const falses = { same: 0, other: 0 };
    for (const p of gallery) {
      const scores = gallery.map((g) => ({ g, c: best(p.probe, g) })).sort((a, b) => b.c - a.c);
      if (scores[0].g.id === p.id && scores[0].c >= threshold) trueMatches++;
      for (const { g, c } of scores) {
        if (g.id === p.id) continue;
        const kind = g.photo === p.photo ? "same" : "other";
        pairs[kind]++;
        if (c >= threshold) falses[kind]++;
      }
    }
    const all = pairs.same + pairs.other;
    return {
      threshold,
      tmr: gallery.length ? trueMatches / gallery.length : 0,
      fmr: all ? (falses.same + falses.other) / all : 0,
      fmrSame: pairs.same ? falses.same / pairs.same : 0,
      fmrOther: pairs.other ? falses.other / pairs.other : 0,
      pairs,
    };
  });
  const rssBench = rssMb() - rss0;
  await engine.close();
  const load1 = os.loadavg()[0];
  const memory = await memoryRun(engine.calls);

  const p50 = median(single);
  const batchMs = median(batch);
  const enroll = median(enrollMs);
  const [r40] = rates;
  report(
    "identity",
    [
      { measure: "load average (1 min) before / after the timed and accuracy parts", value: `${load0.toFixed(2)} / ${load1.toFixed(2)}`, unit: "" },
      { measure: "first frame (model load + inference)", value: firstMs, unit: "ms" },
      { measure: "one 640x480 frame, ≤3 faces, p50", value: p50, unit: "ms", target: "< 400", ok: p50 < 400 },
      { measure: "batch of 5 frames", value: batchMs, unit: "ms", target: "< 1500", ok: batchMs < 1500 },
      { measure: "enrollment of 5 photos (median)", value: enroll, unit: "ms", target: "< 5000", ok: enroll < 5000 },
      {
        measure: `memory added by the model (RSS peak, own process, ${engine.calls.length} calls)`,
        value: memory.peak_mb,
        unit: "MB",
        target: "< 350",
        ok: memory.peak_mb < 350,
      },
      { measure: "  same, at the end", value: memory.end_mb, unit: "MB" },
      { measure: "  RSS added in this process (incl. the bench's own sharp work)", value: rssBench, unit: "MB" },
      ...rates.flatMap((r) => [
        { measure: `true match rate at ${r.threshold} (${gallery.length} faces)`, value: r.tmr, unit: "ratio" },
        { measure: `false match rate at ${r.threshold} (${r.pairs.same + r.pairs.other} pairs)`, value: r.fmr, unit: "ratio" },
        {
          measure: `  of faces in one photo (${r.pairs.same} pairs) / across photos (${r.pairs.other})`,
          value: `${r.fmrSame.toFixed(3)} / ${r.fmrOther.toFixed(3)}`,
          unit: "ratio",
        },
      ]),
    ],
    {
      load_avg: [load0, load1],
      first_ms: firstMs,
      frame_p50_ms: p50,
      batch5_ms: batchMs,
      enroll5_ms: enroll,
      rss_added_mb: memory.peak_mb,
      rss_added_end_mb: memory.end_mb,
      rss_added_bench_process_mb: rssBench,
      faces: gallery.length,
      true_match_rate: r40.tmr,
      false_match_rate: r40.fmr,
      rates: rates.map((r) => ({ threshold: r.threshold, true_match_rate: r.tmr, false_match_rate: r.fmr, same_photo: r.fmrSame, across_photos: r.fmrOther })),
    },
  );
}

if (process.argv[2] === "--memory") memoryChild();
else void main();
