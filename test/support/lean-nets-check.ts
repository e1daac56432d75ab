/**
 * Worker thread for lean-nets.test.ts: runs face-api's own SSD MobileNet and descriptor net and
 * the lean ones (runtime/household/identity/lean-nets.ts) on the same inputs, the sample photos
 * as camera frames (640x480) and as enrollment-size photos (960 wide), and posts how far apart
 * their results are. In a worker so the test process does not keep TensorFlow.js's heap.
 */
import path from "node:path";
import { parentPort } from "node:worker_threads";
import sharp from "sharp";
import { leanResNet, leanSsd, type ResNetParams, type SsdParams } from "../../runtime/household/identity/lean-nets";
import { SAMPLE_COUNT, samplePath } from "./face-photos";

type Tf = typeof import("@tensorflow/tfjs");
type FaceApi = typeof import("@vladmandic/face-api/dist/face-api.node-wasm.js");

export interface CheckResult {
  frames: number;
  /** Faces found by face-api and by the lean detector, per frame. */
  counts: Array<[number, number]>;
  /** Largest difference of a box coordinate (pixels) and of a score between the two detectors. */
  maxBoxDiff: number;
  maxScoreDiff: number;
  descriptors: number;
  /** Largest Euclidean distance between face-api's descriptor and the lean one for the same crop. */
  maxDescriptorDist: number;
  /** Live tensors before and after a second pass over every frame (a leak would grow it). */
  tensorsBefore: number;
  tensorsAfter: number;
}

async function main(): Promise<CheckResult> {
  const tf = require("@tensorflow/tfjs") as Tf;
  const wasm = require("@tensorflow/tfjs-backend-wasm") as typeof import("@tensorflow/tfjs-backend-wasm");
  const faceapi = require("@vladmandic/face-api/dist/face-api.node-wasm.js") as FaceApi;
  wasm.setWasmPaths(path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm")) + path.sep);
  await tf.setBackend("wasm");
  const modelDir = path.join(path.dirname(require.resolve("@vladmandic/face-api/package.json")), "model");
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(modelDir);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(modelDir);
  const ssd = leanSsd(tf, faceapi.nets.ssdMobilenetv1.params as unknown as SsdParams);
  const resnet = leanResNet(tf, faceapi.nets.faceRecognitionNet.params as unknown as ResNetParams);

  const images: Array<{ data: Buffer; width: number; height: number }> = [];
  for (let n = 1; n <= SAMPLE_COUNT; n++) {
    for (const resize of [{ width: 640, height: 480, fit: "cover" as const }, { width: 960 }]) {
      const { data, info } = await sharp(samplePath(n)).resize(resize).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      images.push({ data, width: info.width, height: info.height });
    }
  }
  const result: CheckResult = {
    frames: images.length,
    counts: [],
    maxBoxDiff: 0,
    maxScoreDiff: 0,
    descriptors: 0,
    maxDescriptorDist: 0,
    tensorsBefore: 0,
    tensorsAfter: 0,
  };
  for (const img of images) {
    const x = tf.tensor3d(img.data, [img.height, img.width, 3], "int32");
    const ref = await faceapi.nets.ssdMobilenetv1.locateFaces(x as never, { minConfidence: 0.5, maxResults: 20 });
    const lean = ssd.locate(x, 0.5, 20);
    result.counts.push([ref.length, lean.length]);
    ref.forEach((r, i) => {
      const l = lean[i];
      if (!l) return;
      result.maxBoxDiff = Math.max(
        result.maxBoxDiff,
        Math.abs(r.box.x - l.x),
        Math.abs(r.box.y - l.y),
        Math.abs(r.box.width - l.width),
        Math.abs(r.box.height - l.height),
      );
      result.maxScoreDiff = Math.max(result.maxScoreDiff, Math.abs(r.score - l.score));
    });
    // The same face crops (face-api's boxes) through both descriptor nets.
    const crops = (await faceapi.extractFaceTensors(x as never, ref)) as unknown as import("@tensorflow/tfjs").Tensor3D[];
    if (crops.length) {
      const expected = (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(crops as never)) as Float32Array[];
      const batch = new faceapi.NetInput(crops as never).toBatchTensor(150, true);
      const got = resnet.describe(batch as never);
      batch.dispose();
      expected.forEach((e, i) => {
        const d = Math.sqrt(e.reduce((s, v, j) => s + (v - got[i][j]) ** 2, 0));
        result.maxDescriptorDist = Math.max(result.maxDescriptorDist, d);
        result.descriptors++;
      });
      crops.forEach((c) => c.dispose());
    }
    x.dispose();
  }
  result.tensorsBefore = tf.memory().numTensors;
  for (const img of images) {
    const x = tf.tensor3d(img.data, [img.height, img.width, 3], "int32");
    ssd.locate(x, 0.5, 20);
    x.dispose();
  }
  result.tensorsAfter = tf.memory().numTensors;
  return result;
}

main().then(
  (result) => parentPort?.postMessage({ ok: true, result }),
  (err: unknown) => parentPort?.postMessage({ ok: false, error: err instanceof Error ? err.stack : String(err) }),
);
