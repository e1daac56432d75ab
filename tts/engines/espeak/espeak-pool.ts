import { Worker } from "node:worker_threads";
import path from "node:path";
import { CANCEL_SLOT, type SynthesisJobMessage, type WorkerMessage } from "./espeak-protocol";

export interface PoolJob {
  text: string;
  voice: string;
  rate: number;
  tempo: number;
  onChunk(pcm: Buffer): void;
  signal: AbortSignal;
}

interface QueuedJob extends PoolJob {
  jobId: number;
  resolve(): void;
  reject(err: Error): void;
}

interface PoolWorker {
  worker: Worker;
  cancel: Int32Array;
  current: QueuedJob | null;
}

/**
 * A fixed set of eSpeak worker threads fed from one FIFO queue. Callers submit one sentence at a
 * time and the next only after the previous finished, so the queue interleaves concurrent requests
 * sentence by sentence: a long text cannot hold back a short announcement for long.
 */
export class EspeakPool {
  private readonly workers: PoolWorker[] = [];
  private readonly queue: QueuedJob[] = [];
  private nextJobId = 1;
  private closed = false;
  private lastError: string | undefined;

  private constructor() {}

  /** Resolves once every worker has loaded eSpeak and warmed up. */
  static async start(size: number): Promise<EspeakPool> {
    const pool = new EspeakPool();
    await Promise.all(Array.from({ length: size }, () => pool.spawn()));
    return pool;
  }

  get workerCount(): number {
    return this.workers.length;
  }

  get queued(): number {
    return this.queue.length;
  }

  get busy(): number {
    return this.workers.filter((w) => w.current).length;
  }

  get error(): string | undefined {
    return this.lastError;
  }

  run(job: PoolJob): Promise<void> {
    if (this.closed) return Promise.reject(new Error("eSpeak pool is closed"));
    if (job.signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      // Requests submit many sentences on one signal: the listener must go when the job ends.
      const onAbort = () => this.abort(queued);
      const settle = () => job.signal.removeEventListener("abort", onAbort);
      const queued: QueuedJob = {
        ...job,
        jobId: this.nextJobId++,
        resolve: () => (settle(), resolve()),
        reject: (err) => (settle(), reject(err)),
      };
      job.signal.addEventListener("abort", onAbort, { once: true });
      this.queue.push(queued);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error("eSpeak pool closed"));
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
    this.workers.length = 0;
  }

  private spawn(): Promise<void> {
    const cancelMemory = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const worker = new Worker(path.join(__dirname, "espeak-worker.js"), { workerData: { cancel: cancelMemory } });
    const slot: PoolWorker = { worker, cancel: new Int32Array(cancelMemory), current: null };
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") {
          ready = true;
          this.workers.push(slot);
          resolve();
          this.dispatch();
        } else {
          this.onWorkerMessage(slot, message);
        }
      });
      worker.on("error", (err) => (this.lastError = err.message));
      worker.on("exit", (code) => {
        if (!ready) return reject(new Error(this.lastError ?? `eSpeak worker exited with code ${code}`));
        this.replace(slot, code);
      });
    });
  }

  /** A crashed worker fails only its current sentence; a fresh one takes its place. */
  private replace(slot: PoolWorker, code: number): void {
    const index = this.workers.indexOf(slot);
    if (index >= 0) this.workers.splice(index, 1);
    slot.current?.reject(new Error(this.lastError ?? `eSpeak worker exited with code ${code}`));
    slot.current = null;
    if (!this.closed) this.spawn().catch((err: Error) => (this.lastError = err.message));
  }

  private onWorkerMessage(slot: PoolWorker, message: WorkerMessage): void {
    const job = slot.current;
    if (!job || message.type === "ready" || message.jobId !== job.jobId) return;
    if (message.type === "chunk") {
      if (!job.signal.aborted) job.onChunk(Buffer.from(message.pcm));
      return;
    }
    slot.current = null;
    if (message.type === "done") job.resolve();
    else job.reject(new Error(message.message));
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.workers) {
      if (slot.current) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.current = job;
      const message: SynthesisJobMessage = {
        type: "synth",
        jobId: job.jobId,
        text: job.text,
        voice: job.voice,
        rate: job.rate,
        tempo: job.tempo,
      };
      slot.worker.postMessage(message);
    }
  }

  /** Queued jobs leave the queue; a running one is stopped at eSpeak's next audio callback. */
  private abort(job: QueuedJob): void {
    const index = this.queue.indexOf(job);
    if (index >= 0) {
      this.queue.splice(index, 1);
      job.resolve();
      return;
    }
    const slot = this.workers.find((w) => w.current === job);
    if (slot) Atomics.store(slot.cancel, CANCEL_SLOT, job.jobId);
  }
}
