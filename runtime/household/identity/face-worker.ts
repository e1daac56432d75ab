/**
 * The built-in engine's worker thread: face-api (SSD MobileNet v1 detector, 68-point landmarks,
 * ResNet-34 descriptors) on TensorFlow.js's WebAssembly backend, with the weights and the
 * .wasm binaries read from their npm packages (nothing is fetched). Inference is a couple of
 * hundred milliseconds of CPU per frame, so it never runs on the service's event loop.
 *
 * The detector and the descriptor net run through `lean-nets.ts` (face-api's weights, face-api's
 * results, a fraction of the WebAssembly memory); the landmarks through face-api itself. Each
 * image is decoded once by sharp into RGB at most MAX_SIDE wide; sharp also makes the detector's
 * 512x512 input from it (scaled, padded at the bottom/right as face-api pads), and the face crops
 * for the landmark and descriptor nets are cut from the RGB in JS, so no tensor ever has the
 * image's own size: the WebAssembly heap does not depend on the size of the photos.
 *
 * Messages in: `{id, images: Uint8Array[]}`; out: `{id, ok: true, results}` or `{id, ok: false,
 * error}`. A model that fails to load answers every request with that error.
 */
import path from "node:path";
import { parentPort } from "node:worker_threads";
import sharp from "sharp";
import type { ImageResult } from "./engine";
import { leanResNet, leanSsd, tensorsOf, type LeanResNet, type LeanSsd, type ResNetParams, type SsdParams } from "./lean-nets";

/** Larger images are scaled down first: faces are cut from this, the detector sees 512x512. */
const MAX_SIDE = 1280;
const DETECTOR_SIDE = 512;
const MIN_SCORE = 0.5;
const MAX_FACES = 20;
/** Faces per run of the landmark and descriptor nets (all of a frame's at once, up to this). */
const FACE_BATCH = 8;

type FaceApi = typeof import("@vladmandic/face-api/dist/face-api.node-wasm.js");
type Tf = typeof import("@tensorflow/tfjs");
type Box = InstanceType<FaceApi["Box"]>;
type Tensor3D = import("@tensorflow/tfjs").Tensor3D;

interface Loaded {
  faceapi: FaceApi;
  tf: Tf;
  ssd: LeanSsd;
  resnet: LeanResNet;
}

let loading: Promise<Loaded> | undefined;

async function load(): Promise<Loaded> {
  // Required here, not at the top: a missing or broken package is a load error to report, not a crash.
  const tf = require("@tensorflow/tfjs") as Tf;
  const wasm = require("@tensorflow/tfjs-backend-wasm") as typeof import("@tensorflow/tfjs-backend-wasm");
  const faceapi = require("@vladmandic/face-api/dist/face-api.node-wasm.js") as FaceApi;
  wasm.setWasmPaths(path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm")) + path.sep);
  if (!(await tf.setBackend("wasm"))) throw new Error("the WebAssembly backend of TensorFlow.js did not start");
  await tf.ready();
  const modelDir = process.env.CAREFLOW_FACE_MODEL_DIR ?? path.join(path.dirname(require.resolve("@vladmandic/face-api/package.json")), "model");
  const { ssdMobilenetv1, faceLandmark68Net, faceRecognitionNet } = faceapi.nets;
  await ssdMobilenetv1.loadFromDisk(modelDir);
  await faceLandmark68Net.loadFromDisk(modelDir);
  await faceRecognitionNet.loadFromDisk(modelDir);
  const ssdParams = ssdMobilenetv1.params as unknown as SsdParams;
  const resnetParams = faceRecognitionNet.params as unknown as ResNetParams;
  const ssd = leanSsd(tf, ssdParams);
  const resnet = leanResNet(tf, resnetParams);
  // face-api's own copies that the lean nets folded (weights before batch norm and scale) are never read again.
  const used = new Set([...ssd.tensors, ...resnet.tensors]);
  for (const t of tensorsOf(tf, [ssdParams, resnetParams])) if (!used.has(t)) t.dispose();
  return { faceapi, tf, ssd, resnet };
}

interface Decoded {
  /** The image's size after its EXIF orientation. */
  width: number;
  height: number;
  /** RGB, `w` x `h` (at most MAX_SIDE). */
  rgb: Buffer;
  w: number;
  h: number;
  /** The detector's input: RGB 512x512, the image scaled to fit and padded at the bottom/right. */
  square: Buffer;
}

async function decode(bytes: Uint8Array): Promise<Decoded | { error: string }> {
  try {
    const img = sharp(bytes, { limitInputPixels: 40_000_000 }).rotate();
    const meta = await img.metadata();
    const swap = (meta.orientation ?? 1) >= 5;
    const width = (swap ? meta.height : meta.width) ?? 0;
    const height = (swap ? meta.width : meta.height) ?? 0;
    const { data: rgb, info } = await img
      .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: "inside", withoutEnlargement: true })
      .removeAlpha()
      .toColourspace("srgb")
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { width: w, height: h } = info;
    const k = DETECTOR_SIDE / Math.max(w, h);
    const sw = Math.max(1, Math.round(w * k));
    const sh = Math.max(1, Math.round(h * k));
    const square = await sharp(rgb, { raw: { width: w, height: h, channels: 3 } })
      .resize(sw, sh, { fit: "fill" })
      .extend({ right: DETECTOR_SIDE - sw, bottom: DETECTOR_SIDE - sh, background: { r: 0, g: 0, b: 0 } })
      .raw()
      .toBuffer();
    return { width, height, rgb, w, h, square };
  } catch (err) {
    return { error: `not a readable image (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** The pixels of `box` (clipped to the image), as face-api's `extractFaceTensors` cuts them; null when nothing is left. */
function cut(tf: Tf, d: Decoded, box: Box): Tensor3D | null {
  const b = box.clipAtImageBorders(d.w, d.h);
  if (b.width <= 0 || b.height <= 0) return null;
  const out = new Int32Array(b.width * b.height * 3);
  for (let y = 0; y < b.height; y++) {
    const from = ((b.y + y) * d.w + b.x) * 3;
    out.set(d.rgb.subarray(from, from + b.width * 3), y * b.width * 3);
  }
  return tf.tensor3d(out, [b.height, b.width, 3], "int32");
}

async function detectOne({ faceapi, tf, ssd, resnet }: Loaded, d: Decoded): Promise<ImageResult> {
  const input = tf.tensor3d(d.square, [DETECTOR_SIDE, DETECTOR_SIDE, 3], "int32");
  let found;
  try {
    found = ssd.locate(input, MIN_SCORE, MAX_FACES);
  } finally {
    input.dispose();
  }
  // Detector pixels to the decoded image's, relative to its size as face-api's FaceDetection keeps them.
  const k = Math.max(d.w, d.h) / DETECTOR_SIDE;
  const detections = found
    .map(
      (f) =>
        new faceapi.FaceDetection(f.score, new faceapi.Rect((f.x * k) / d.w, (f.y * k) / d.h, (f.width * k) / d.w, (f.height * k) / d.h), {
          width: d.w,
          height: d.h,
        }),
    )
    .filter((det) => {
      const b = det.box.clipAtImageBorders(d.w, d.h);
      return b.width > 0 && b.height > 0;
    });
  const faces: Array<{ bbox: number[]; score: number; descriptor: number[] }> = [];
  const scale = d.width / d.w;
  for (let start = 0; start < detections.length; start += FACE_BATCH) {
    const group = detections.slice(start, start + FACE_BATCH);
    const crops = group.map((det) => cut(tf, d, det.box) as Tensor3D);
    let marks;
    try {
      marks = (await faceapi.nets.faceLandmark68Net.detectLandmarks(crops)) as InstanceType<FaceApi["FaceLandmarks68"]>[];
    } finally {
      crops.forEach((t) => t.dispose());
    }
    // face-api's alignment for descriptors: the dlib-style box around the landmarks (in the image's pixels).
    const aligned = group.map((det, i) =>
      cut(tf, d, faceapi.extendWithFaceLandmarks(faceapi.extendWithFaceDetection({}, det), marks[i]).landmarks.align(null, { useDlibAlignment: true })),
    );
    const kept = group.filter((_, i) => aligned[i] !== null);
    const tensors = aligned.filter((t): t is Tensor3D => t !== null);
    if (!tensors.length) continue;
    let descriptors: Float32Array[];
    try {
      const batch = new faceapi.NetInput(tensors).toBatchTensor(150, true);
      try {
        descriptors = resnet.describe(batch as unknown as import("@tensorflow/tfjs").Tensor4D);
      } finally {
        batch.dispose();
      }
    } finally {
      tensors.forEach((t) => t.dispose());
    }
    for (const [i, det] of kept.entries()) {
      const b = det.box;
      faces.push({
        bbox: [b.x, b.y, b.x + b.width, b.y + b.height].map((v) => Math.round(v * scale)),
        score: Number(det.score.toFixed(4)),
        descriptor: Array.from(descriptors[i], (v) => Number(v.toFixed(6))),
      });
    }
  }
  return { width: d.width, height: d.height, faces };
}

parentPort?.on("message", (msg: { id: number; images: Uint8Array[] }) => {
  loading ??= load();
  void (async () => {
    try {
      const loaded = await loading;
      const results: ImageResult[] = [];
      // The next image is decoded (sharp's threads) while this one runs through the nets (this thread).
      let next = msg.images.length ? decode(msg.images[0]) : undefined;
      for (let i = 0; i < msg.images.length; i++) {
        const d = await (next as Promise<Decoded | { error: string }>);
        next = i + 1 < msg.images.length ? decode(msg.images[i + 1]) : undefined;
        results.push("error" in d ? d : await detectOne(loaded, d));
      }
      parentPort?.postMessage({ id: msg.id, ok: true, results });
    } catch (err) {
      parentPort?.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  })();
});
