/**
 * Streaming windowed-sinc resampler. Engines speak at their own rate (eSpeak NG at 22,050 Hz,
 * some servers at 16 or 48 kHz) and the wire format is 24 kHz; linear interpolation would dull
 * consonants, so a short Blackman-windowed sinc is used, precomputed in phases so the per-sample
 * cost is a few multiply-adds. State is kept between pushes so chunk edges leave no clicks.
 */
const PHASES = 512;
const HALF_TAPS = 8;

export class StreamingResampler {
  private readonly step: number;
  private readonly table: Float32Array;
  private buffer: Float32Array;
  /** Position of the next output sample, in buffer samples. */
  private position = HALF_TAPS;
  private inputSeen = 0;
  private outputMade = 0;

  constructor(
    readonly inputRate: number,
    readonly outputRate: number,
  ) {
    this.step = inputRate / outputRate;
    this.table = buildKernelTable(Math.min(1, outputRate / inputRate));
    this.buffer = new Float32Array(HALF_TAPS);
  }

  get isIdentity(): boolean {
    return this.inputRate === this.outputRate;
  }

  push(input: Float32Array): Float32Array {
    if (this.isIdentity) return input;
    this.inputSeen += input.length;
    this.append(input);
    return this.drain(this.buffer.length - HALF_TAPS);
  }

  /** Emits the tail, padding with silence, so the total length matches the rate ratio. */
  flush(): Float32Array {
    if (this.isIdentity) return new Float32Array(0);
    const missing = Math.round((this.inputSeen * this.outputRate) / this.inputRate) - this.outputMade;
    this.append(new Float32Array(HALF_TAPS * 2));
    const tail = this.drain(this.buffer.length - HALF_TAPS);
    return tail.subarray(0, Math.max(0, Math.min(tail.length, missing)));
  }

  private append(input: Float32Array): void {
    const joined = new Float32Array(this.buffer.length + input.length);
    joined.set(this.buffer);
    joined.set(input, this.buffer.length);
    this.buffer = joined;
  }

  /** Produces every output sample whose kernel lies before `limit`, then drops spent input. */
  private drain(limit: number): Float32Array {
    const count = Math.max(0, Math.ceil((limit - this.position) / this.step));
    const out = new Float32Array(count);
    const buf = this.buffer;
    const table = this.table;
    const taps = HALF_TAPS * 2;
    let pos = this.position;
    for (let n = 0; n < count; n++) {
      const base = Math.floor(pos);
      const phase = Math.round((pos - base) * PHASES);
      const row = phase * taps;
      const first = base - HALF_TAPS + 1;
      let acc = 0;
      for (let k = 0; k < taps; k++) acc += buf[first + k] * table[row + k];
      out[n] = acc;
      pos += this.step;
    }
    const keepFrom = Math.max(0, Math.floor(pos) - HALF_TAPS + 1);
    this.buffer = buf.slice(keepFrom);
    this.position = pos - keepFrom;
    this.outputMade += count;
    return out;
  }
}

/** Row p holds the taps for a fractional offset p / PHASES, normalised to unity gain. */
function buildKernelTable(cutoff: number): Float32Array {
  const taps = HALF_TAPS * 2;
  const table = new Float32Array((PHASES + 1) * taps);
  for (let p = 0; p <= PHASES; p++) {
    const frac = p / PHASES;
    let sum = 0;
    for (let k = 0; k < taps; k++) {
      const x = k - HALF_TAPS + 1 - frac;
      const value = cutoff * sinc(cutoff * x) * blackman(x / HALF_TAPS);
      table[p * taps + k] = value;
      sum += value;
    }
    for (let k = 0; k < taps; k++) table[p * taps + k] /= sum;
  }
  return table;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

/** Blackman window over [-1, 1]. */
function blackman(t: number): number {
  if (t <= -1 || t >= 1) return 0;
  const a = Math.PI * (t + 1);
  return 0.42 - 0.5 * Math.cos(a) + 0.08 * Math.cos(2 * a);
}
