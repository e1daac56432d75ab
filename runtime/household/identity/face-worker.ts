/**
 * The built-in engine's worker thread: face-api (SSD MobileNet v1 detector, 68-point landmarks,
 * ResNet-34 descriptors) on TensorFlow.js's WebAssembly backend, with the weights and the
 * .wasm binaries read from their npm packages (nothing is fetched). Inference is a few hundred
 * milliseconds of CPU per frame, so it never runs on the service's event loop.
 *
 * Messages in: `{id, images: Uint8Array[]}`; out: `{id, ok: true, results}` or `{id, ok: false,
 * error}`. A model that fails to load answers every request with that error.
 */
import path from "node:path";
import { parentPort } from "node:worker_threads";
import sharp from "sharp";
import type { ImageResult } from "./engine";

/** Larger images are scaled down first: the detector looks at 512x512 anyway. */
const MAX_SIDE = 1280;
const MIN_SCORE = 0.5;
const MAX_FACES = 20;

type FaceApi = typeof import("@vladmandic/face-api/dist/face-api.node-wasm.js");
type Tf = typeof import("@tensorflow/tfjs");

interface Loaded {
  faceapi: FaceApi;
  tf: Tf;
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
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(modelDir);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(modelDir);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(modelDir);
  return { faceapi, tf };
}

async function detectOne({ faceapi, tf }: Loaded, bytes: Uint8Array): Promise<ImageResult> {
  let decoded: { data: Buffer; info: { width: number; height: number } };
  let width: number;
  let height: number;
  try {
    const img = sharp(bytes, { limitInputPixels: 40_000_000 }).rotate();
    const meta = await img.metadata();
    const swap = (meta.orientation ?? 1) >= 5;
    width = (swap ? meta.height : meta.width) ?? 0;
    height = (swap ? meta.width : meta.height) ?? 0;
    decoded = await img
      .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: "inside", withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    return { error: `not a readable image (${err instanceof Error ? err.message : String(err)})` };
  }
  const { data, info } = decoded;
  const scale = width / info.width;
  const tensor = tf.tensor3d(data, [info.height, info.width, 3], "int32");
  try {
    const found = await faceapi
      .detectAllFaces(tensor, new faceapi.SsdMobilenetv1Options({ minConfidence: MIN_SCORE, maxResults: MAX_FACES }))
      .withFaceLandmarks()
      .withFaceDescriptors();
    return {
      width,
      height,
      faces: found.map((f) => {
        const b = f.detection.box;
        return {
          bbox: [b.x, b.y, b.x + b.width, b.y + b.height].map((v) => Math.round(v * scale)),
          score: Number(f.detection.score.toFixed(4)),
          descriptor: Array.from(f.descriptor, (v) => Number(v.toFixed(6))),
        };
      }),
    };
  } finally {
    tensor.dispose();
  }
}

parentPort?.on("message", (msg: { id: number; images: Uint8Array[] }) => {
  loading ??= load();
  void (async () => {
    try {
      const loaded = await loading;
      const results: ImageResult[] = [];
      for (const image of msg.images) results.push(await detectOne(loaded, image));
      parentPort?.postMessage({ id: msg.id, ok: true, results });
    } catch (err) {
      parentPort?.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  })();
});
