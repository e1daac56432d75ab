/**
 * face-api's SSD MobileNet v1 detector and ResNet-34 descriptor net, run from face-api's own
 * loaded weights but without its forward passes. face-api computes each layer as separate ops
 * (convolution, bias, batch norm or scale, activation) inside one `tf.tidy`, so every activation
 * of the whole net stays allocated until the net ends: on TensorFlow.js's WebAssembly backend
 * that grew the heap to ~300 MB on the first frames, and a WebAssembly heap never shrinks. Here:
 *
 * - batch norm (SSD's depthwise layers) and the scale layers (ResNet) are folded into the
 *   convolution's weights and bias once, at load: y = conv(x, w·k) + (b·k + c);
 * - each layer is one fused kernel (convolution + bias + ReLU/ReLU6);
 * - a layer's input is disposed as soon as the next layer has run, so at most two layers'
 *   activations exist at once;
 * - SSD's box decoding and non-maximum suppression run in plain JS on the 5,118 anchors
 *   (face-api's NMS re-reads the whole box tensor with `arraySync()` for every pair it compares).
 *
 * The results are face-api's, to float rounding (checked by test/runtime/household/identity/
 * lean-nets.test.ts against face-api's own chain on the sample photos).
 */
import type * as TF from "@tensorflow/tfjs";

type Tf = typeof TF;
type T1 = TF.Tensor1D;
type T4 = TF.Tensor4D;

/** face-api's SSD MobileNet v1 parameters (`nets.ssdMobilenetv1.params`), the parts used here. */
export interface SsdParams {
  mobilenetv1: Record<string, PointwiseParams | { depthwise_conv: DepthwiseParams; pointwise_conv: PointwiseParams }>;
  prediction_layer: Record<string, PointwiseParams | BoxPredictorParams>;
  output_layer: { extra_dim: TF.Tensor3D };
}
interface PointwiseParams {
  filters: T4;
  batch_norm_offset: T1;
}
interface DepthwiseParams {
  filters: T4;
  batch_norm_scale: T1;
  batch_norm_offset: T1;
  batch_norm_mean: T1;
  batch_norm_variance: T1;
}
interface ConvParams {
  filters: T4;
  bias: T1;
}
interface BoxPredictorParams {
  box_encoding_predictor: ConvParams;
  class_predictor: ConvParams;
}

/** face-api's ResNet-34 descriptor net parameters (`nets.faceRecognitionNet.params`). */
export interface ResNetParams {
  [layer: string]: ScaledConvParams | { conv1: ScaledConvParams; conv2: ScaledConvParams } | TF.Tensor2D;
}
interface ScaledConvParams {
  conv: ConvParams;
  scale: { weights: T1; biases: T1 };
}

interface Conv {
  filter: T4;
  bias: T1;
}

/** A face found by the detector: score and box in the input tensor's pixels. */
export interface FoundBox {
  score: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Every tensor reachable from a parameter object (to dispose those a lean net does not keep). */
export function tensorsOf(tf: Tf, value: unknown, into = new Set<TF.Tensor>()): Set<TF.Tensor> {
  if (value instanceof tf.Tensor) into.add(value);
  else if (value && typeof value === "object") for (const v of Object.values(value)) tensorsOf(tf, v, into);
  return into;
}

const SSD_INPUT = 512;
// face-api's (TensorFlow's) batch norm epsilon for the SSD weights.
const BN_EPSILON = 0.0010000000474974513;
const NMS_IOU = 0.5;

export interface LeanSsd {
  /** The tensors this net uses (the folded copies and those of face-api's it reads as they are). */
  readonly tensors: Set<TF.Tensor>;
  /** Faces in `image` (int32 or float32 RGB 0–255, any size: padded to a square at the bottom/right and resized to 512 as face-api does). */
  locate(image: TF.Tensor3D, minScore: number, maxResults: number): FoundBox[];
  dispose(): void;
}

export function leanSsd(tf: Tf, params: SsdParams): LeanSsd {
  const own: TF.Tensor[] = [];
  const keep = <T extends TF.Tensor>(t: T): T => {
    own.push(tf.keep(t));
    return t;
  };
  type Layer = Conv & { depthwise: boolean; strides: 1 | 2; matrix?: TF.Tensor2D };
  // A 1x1 convolution with stride 1 runs as a matrix product (see `conv1x1`).
  const matrixOf = (filter: T4): TF.Tensor2D | undefined =>
    filter.shape[0] === 1 && filter.shape[1] === 1 ? keep(tf.reshape(filter, [filter.shape[2], filter.shape[3]]) as TF.Tensor2D) : undefined;
  const pointwise = (p: PointwiseParams, strides: 1 | 2): Layer => ({
    filter: p.filters,
    bias: p.batch_norm_offset,
    depthwise: false,
    strides,
    matrix: strides === 1 ? matrixOf(p.filters) : undefined,
  });
  const depthwise = (p: DepthwiseParams, strides: 1 | 2): Layer =>
    tf.tidy(() => {
      const k = tf.div(p.batch_norm_scale, tf.sqrt(tf.add(p.batch_norm_variance, BN_EPSILON)));
      const filter = keep(tf.mul(p.filters, tf.reshape(k, [1, 1, -1, 1])) as T4);
      const bias = keep(tf.sub(p.batch_norm_offset, tf.mul(p.batch_norm_mean, k)) as T1);
      return { filter, bias, depthwise: true, strides };
    });
  const m = params.mobilenetv1;
  const body: Layer[] = [pointwise(m.conv_0 as PointwiseParams, 2)];
  for (let i = 1; i <= 13; i++) {
    const pair = m[`conv_${i}`] as { depthwise_conv: DepthwiseParams; pointwise_conv: PointwiseParams };
    body.push(depthwise(pair.depthwise_conv, [2, 4, 6, 12].includes(i) ? 2 : 1), pointwise(pair.pointwise_conv, 1));
  }
  // The output of MobileNet's layer 11 (pointwise) feeds the first box predictor.
  const CONV11 = 22;
  const pl = params.prediction_layer;
  const extra = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => pointwise(pl[`conv_${i}`] as PointwiseParams, i % 2 ? 2 : 1));
  const predictors = [0, 1, 2, 3, 4, 5].map((i) => {
    const p = pl[`box_predictor_${i}`] as BoxPredictorParams;
    return { p, box: matrixOf(p.box_encoding_predictor.filters), cls: matrixOf(p.class_predictor.filters) };
  });
  const anchors = params.output_layer.extra_dim.dataSync() as Float32Array;

  /**
   * A 1x1 convolution as [pixels, in] x [in, out]: the WebAssembly backend keeps a transposed copy
   * of every conv2d filter besides XNNPACK's packed one (three copies of the weights in all); its
   * matrix product packs the weights itself and keeps no copy. Most of SSD's weights are 1x1.
   */
  const conv1x1 = (x: T4, matrix: TF.Tensor2D, bias: T1, activation: "relu6" | "linear"): T4 =>
    tf.tidy(() => {
      const [n, h, w, c] = x.shape;
      const y = tf.fused.matMul({ a: tf.reshape(x, [n * h * w, c]), b: matrix, bias, activation });
      return tf.reshape(y, [n, h, w, matrix.shape[1]]);
    });
  const run = (x: T4, l: Layer): T4 =>
    l.matrix
      ? conv1x1(x, l.matrix, l.bias, "relu6")
      : l.depthwise
        ? tf.fused.depthwiseConv2d({ x, filter: l.filter, strides: l.strides, pad: "same", bias: l.bias, activation: "relu6" })
        : tf.fused.conv2d({ x, filter: l.filter, strides: l.strides, pad: "same", bias: l.bias, activation: "relu6" });
  const predict = (x: T4, { p, box, cls }: (typeof predictors)[number]): [Float32Array, Float32Array] => {
    const conv = (c: ConvParams, matrix: TF.Tensor2D | undefined): Float32Array => {
      const y = matrix ? conv1x1(x, matrix, c.bias, "linear") : tf.fused.conv2d({ x, filter: c.filters, strides: 1, pad: "same", bias: c.bias });
      const data = y.dataSync() as Float32Array;
      y.dispose();
      return data;
    };
    return [conv(p.box_encoding_predictor, box), conv(p.class_predictor, cls)];
  };

  /** Box encodings (4 per anchor) and class logits (3 per anchor, face is 1), in face-api's anchor order. */
  function forward(image: TF.Tensor3D): { encodings: Float32Array; logits: Float32Array } {
    const [h, w] = image.shape;
    const side = Math.max(h, w);
    let x = tf.tidy(() => {
      let t = tf.cast(image, "float32") as TF.Tensor3D;
      if (h !== w)
        t = tf.pad(t, [
          [0, side - h],
          [0, side - w],
          [0, 0],
        ]);
      let b = tf.expandDims(t) as T4;
      if (side !== SSD_INPUT) b = tf.image.resizeBilinear(b, [SSD_INPUT, SSD_INPUT], false, false);
      return tf.sub(tf.div(b, 127.5), 1) as T4;
    });
    let conv11: T4 | undefined;
    for (const [i, l] of body.entries()) {
      const y = run(x, l);
      if (x !== conv11) x.dispose();
      x = y;
      if (i === CONV11) conv11 = x;
    }
    const parts = [predict(conv11 as T4, predictors[0]), predict(x, predictors[1])];
    conv11?.dispose();
    for (const [i, l] of extra.entries()) {
      const y = run(x, l);
      x.dispose();
      x = y;
      if (i % 2) parts.push(predict(x, predictors[(i + 1) / 2 + 1]));
    }
    x.dispose();
    const n = anchors.length / 4;
    const encodings = new Float32Array(n * 4);
    const logits = new Float32Array(n * 3);
    let e = 0;
    let c = 0;
    for (const [enc, cls] of parts) {
      encodings.set(enc, e);
      logits.set(cls, c);
      e += enc.length;
      c += cls.length;
    }
    return { encodings, logits };
  }

  function locate(image: TF.Tensor3D, minScore: number, maxResults: number): FoundBox[] {
    const { encodings, logits } = forward(image);
    const n = anchors.length / 4;
    // face-api's decoding: anchors are [ymin, xmin, ymax, xmax]; box encodings are scaled by 10 (centre) and 5 (size).
    const boxes = new Float32Array(n * 4);
    const candidates: Array<{ i: number; score: number }> = [];
    for (let i = 0; i < n; i++) {
      const score = 1 / (1 + Math.exp(-logits[i * 3 + 1]));
      if (score <= minScore) continue;
      const [ay0, ax0, ay1, ax1] = anchors.subarray(i * 4, i * 4 + 4);
      const ah = ay1 - ay0;
      const aw = ax1 - ax0;
      const cy = (encodings[i * 4] / 10) * ah + (ay0 + ah / 2);
      const cx = (encodings[i * 4 + 1] / 10) * aw + (ax0 + aw / 2);
      const hh = (Math.exp(encodings[i * 4 + 2] / 5) * ah) / 2;
      const hw = (Math.exp(encodings[i * 4 + 3] / 5) * aw) / 2;
      boxes.set([cy - hh, cx - hw, cy + hh, cx + hw], i * 4);
      candidates.push({ i, score });
    }
    candidates.sort((a, b) => b.score - a.score);
    const selected: number[] = [];
    for (const c of candidates) {
      if (selected.length >= maxResults) break;
      if (selected.every((j) => iou(boxes, c.i, j) <= NMS_IOU)) selected.push(c.i);
    }
    const [h, w] = image.shape;
    const side = Math.max(h, w);
    return selected.map((i) => {
      const top = Math.max(0, boxes[i * 4]) * side;
      const left = Math.max(0, boxes[i * 4 + 1]) * side;
      const bottom = Math.min(1, boxes[i * 4 + 2]) * side;
      const right = Math.min(1, boxes[i * 4 + 3]) * side;
      return { score: 1 / (1 + Math.exp(-logits[i * 3 + 1])), x: left, y: top, width: right - left, height: bottom - top };
    });
  }

  const tensors = new Set<TF.Tensor>([...own, ...tensorsOf(tf, [body, extra, predictors, params.output_layer])]);
  return { tensors, locate, dispose: () => own.forEach((t) => t.dispose()) };
}

function iou(b: Float32Array, i: number, j: number): number {
  const [iy0, iy1] = [Math.min(b[i * 4], b[i * 4 + 2]), Math.max(b[i * 4], b[i * 4 + 2])];
  const [ix0, ix1] = [Math.min(b[i * 4 + 1], b[i * 4 + 3]), Math.max(b[i * 4 + 1], b[i * 4 + 3])];
  const [jy0, jy1] = [Math.min(b[j * 4], b[j * 4 + 2]), Math.max(b[j * 4], b[j * 4 + 2])];
  const [jx0, jx1] = [Math.min(b[j * 4 + 1], b[j * 4 + 3]), Math.max(b[j * 4 + 1], b[j * 4 + 3])];
  const areaI = (iy1 - iy0) * (ix1 - ix0);
  const areaJ = (jy1 - jy0) * (jx1 - jx0);
  if (areaI <= 0 || areaJ <= 0) return 0;
  const inter = Math.max(Math.min(iy1, jy1) - Math.max(iy0, jy0), 0) * Math.max(Math.min(ix1, jx1) - Math.max(ix0, jx0), 0);
  return inter / (areaI + areaJ - inter);
}

const RESNET_BLOCKS = [
  "conv32_1",
  "conv32_2",
  "conv32_3",
  "conv64_down",
  "conv64_1",
  "conv64_2",
  "conv64_3",
  "conv128_down",
  "conv128_1",
  "conv128_2",
  "conv256_down",
  "conv256_1",
  "conv256_2",
  "conv256_down_out",
];
// face-api's mean RGB for the descriptor net's input.
const MEAN_RGB = [122.782, 117.001, 104.298];

export interface LeanResNet {
  readonly tensors: Set<TF.Tensor>;
  /** 128-number descriptors of a batch of aligned faces, float32 [n, 150, 150, 3], 0–255 (face-api's `NetInput.toBatchTensor(150, true)`). */
  describe(batch: T4): Float32Array[];
  dispose(): void;
}

export function leanResNet(tf: Tf, params: ResNetParams): LeanResNet {
  const own: TF.Tensor[] = [];
  const fold = (p: ScaledConvParams): Conv =>
    tf.tidy(() => {
      const s = p.scale.weights;
      const filter = tf.keep(tf.mul(p.conv.filters, tf.reshape(s, [1, 1, 1, -1])) as T4);
      const bias = tf.keep(tf.add(tf.mul(p.conv.bias, s), p.scale.biases) as T1);
      own.push(filter, bias);
      return { filter, bias };
    });
  const first = fold(params.conv32_down as ScaledConvParams);
  const blocks = RESNET_BLOCKS.map((name) => {
    const p = params[name] as { conv1: ScaledConvParams; conv2: ScaledConvParams };
    return { down: name.includes("_down"), conv1: fold(p.conv1), conv2: fold(p.conv2) };
  });
  const fc = params.fc as TF.Tensor2D;
  const mean = tf.tensor1d(MEAN_RGB);
  own.push(mean);

  const conv = (x: T4, c: Conv, strides: 1 | 2, pad: "same" | "valid", activation: "relu" | "linear"): T4 =>
    tf.fused.conv2d({ x, filter: c.filter, bias: c.bias, strides, pad, activation });

  function describe(batch: T4): Float32Array[] {
    let x = tf.tidy(() => conv(tf.div(tf.sub(batch, mean), 255) as T4, first, 2, "valid", "relu"));
    const pooled = tf.maxPool(x, 3, 2, "valid");
    x.dispose();
    x = pooled;
    for (const b of blocks) {
      const a = conv(x, b.conv1, b.down ? 2 : 1, b.down ? "valid" : "same", "relu");
      const out = conv(a, b.conv2, 1, "same", "linear");
      a.dispose();
      const input = x;
      x = tf.tidy(() => {
        if (!b.down) return tf.relu(tf.add(out, input)) as T4;
        // face-api's residualDown: the shortcut is a 2x2 average pool, zero-padded to the new channel count;
        // an odd size leaves the convolution one row and column short, padded with zeros.
        let shortcut = tf.avgPool(input, 2, 2, "valid") as T4;
        let o: T4 = out;
        if (shortcut.shape[1] !== o.shape[1] || shortcut.shape[2] !== o.shape[2])
          o = tf.pad(o, [
            [0, 0],
            [0, 1],
            [0, 1],
            [0, 0],
          ]);
        if (shortcut.shape[3] !== o.shape[3]) shortcut = tf.concat([shortcut, tf.zeros(shortcut.shape)], 3);
        return tf.relu(tf.add(shortcut, o)) as T4;
      });
      out.dispose();
      input.dispose();
    }
    const descriptors = tf.tidy(() => tf.matMul(tf.mean(x, [1, 2]) as TF.Tensor2D, fc));
    x.dispose();
    const data = descriptors.dataSync() as Float32Array;
    descriptors.dispose();
    return Array.from({ length: batch.shape[0] }, (_, i) => data.slice(i * 128, (i + 1) * 128));
  }

  const tensors = new Set<TF.Tensor>([...own, fc]);
  return { tensors, describe, dispose: () => own.forEach((t) => t.dispose()) };
}
