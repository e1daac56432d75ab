/**
 * The built-in face engine: one worker thread (`face-worker.ts`), started at the first use and
 * stopped by `close()` (the app's Lifecycle). Requests are answered in order; a worker that
 * dies fails the requests in flight and the next request starts a new one.
 */
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { FaceEngine, ImageResult } from "./engine";

interface Pending {
  resolve(results: ImageResult[]): void;
  reject(err: Error): void;
}

export class WorkerFaceEngine implements FaceEngine {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly script = path.join(__dirname, "face-worker.js")) {}

  /** Whether the worker thread is running (it starts at the first request). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  detect(images: readonly Uint8Array[]): Promise<ImageResult[]> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<ImageResult[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      // Copies: the caller keeps its buffers (a Buffer may share a pooled ArrayBuffer).
      worker.postMessage({ id, images: images.map((b) => Uint8Array.from(b)) });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script);
    worker.on("message", (msg: { id: number; ok: boolean; results?: ImageResult[]; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      // Idle, the worker does not keep the process alive.
      if (!this.pending.size) worker.unref();
      if (msg.ok) p.resolve(msg.results ?? []);
      else p.reject(new Error(msg.error ?? "the face engine failed"));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on("error", (err) => fail(new Error(`the face engine stopped: ${err.message}`)));
    worker.on("exit", (code) => fail(new Error(`the face engine stopped (exit code ${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
