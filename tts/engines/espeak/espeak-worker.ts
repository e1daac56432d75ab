import { parentPort, workerData } from "node:worker_threads";
import { PCM_SAMPLE_RATE, floatToInt16Buffer, int16ToFloat } from "../../audio/pcm";
import { StreamingResampler } from "../../audio/resample";
import { timeStretch } from "../../audio/time-stretch";
import { ESPEAK_NORMAL_RATE, loadEspeak, type EspeakWorker } from "./espeak-module";
import { CANCEL_SLOT, type SynthesisJobMessage, type WorkerMessage } from "./espeak-protocol";

/**
 * One eSpeak NG instance per worker thread. Synthesis is synchronous inside WASM, so it runs here
 * to keep the HTTP thread free; audio is resampled to the wire format and posted chunk by chunk
 * while eSpeak is still working on the rest of the sentence.
 */
const port = parentPort;
if (!port) throw new Error("espeak-worker must run as a worker thread");
const cancel = new Int32Array((workerData as { cancel: SharedArrayBuffer }).cancel);
/** Sentences that bring eSpeak's WASM up to its optimised tier before the first real request. */
const WARM_UP = [
  ["en-us+f3", "Good morning. The kettle is on, and lunch is at noon with the family."],
  ["hi+f3", "नमस्ते, दवा लेने का समय हो गया है।"],
] as const;
const WARM_UP_ROUNDS = 6;

function post(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

type Emit = (samples: Float32Array) => void;

function postPcm(jobId: number): Emit {
  return (samples) => {
    if (samples.length === 0) return;
    // floatToInt16Buffer allocates outside Node's shared pool, so the whole ArrayBuffer is ours to move.
    const pcm = floatToInt16Buffer(samples).buffer as ArrayBuffer;
    post({ type: "chunk", jobId, pcm }, [pcm]);
  };
}

function synthesise(engine: EspeakWorker, job: SynthesisJobMessage, state: { voice: string; rate: number }, emit: Emit): void {
  if (state.voice !== job.voice) {
    if (engine.set_voice(job.voice) !== 0) throw new Error(`eSpeak cannot load voice ${job.voice}`);
    state.voice = job.voice;
  }
  if (state.rate !== job.rate) {
    engine.set_rate(job.rate);
    state.rate = job.rate;
  }
  const resampler = new StreamingResampler(engine.get_samplerate(), PCM_SAMPLE_RATE);
  const stretched: Float32Array[] = [];
  engine.synthesize(job.text, (samples) => {
    if (Atomics.load(cancel, CANCEL_SLOT) === job.jobId) return true;
    if (!samples || samples.length === 0) return false;
    const floats = int16ToFloat(samples);
    if (job.tempo === 1) emit(resampler.push(floats));
    else stretched.push(floats);
    return false;
  });
  if (job.tempo !== 1) {
    // WSOLA needs the whole sentence; the stretched audio is then sent in the same chunk sizes.
    const audio = timeStretch(concat(stretched), job.tempo, engine.get_samplerate());
    const step = Math.round(engine.get_samplerate() / 10);
    for (let i = 0; i < audio.length; i += step) emit(resampler.push(audio.subarray(i, i + step)));
  }
  emit(resampler.flush());
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

async function main(): Promise<void> {
  const engine = await loadEspeak();
  const state = { voice: "", rate: 0 };
  for (let round = 0; round < WARM_UP_ROUNDS; round++) {
    for (const [voice, text] of WARM_UP) {
      const job: SynthesisJobMessage = { type: "synth", jobId: 0, text, voice, rate: ESPEAK_NORMAL_RATE, tempo: 1 };
      synthesise(engine, job, state, (samples) => floatToInt16Buffer(samples));
    }
  }
  port!.on("message", (job: SynthesisJobMessage) => {
    try {
      synthesise(engine, job, state, postPcm(job.jobId));
      post({ type: "done", jobId: job.jobId });
    } catch (err) {
      post({ type: "error", jobId: job.jobId, message: err instanceof Error ? err.message : String(err) });
    }
  });
  post({ type: "ready" });
}

main().catch((err: unknown) => {
  // Without an engine this worker is useless; the pool sees the exit and reports it.
  console.error("espeak worker failed to start:", err);
  process.exit(1);
});
