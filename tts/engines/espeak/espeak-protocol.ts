/** Messages between the eSpeak pool (main thread) and its workers. */
export interface SynthesisJobMessage {
  type: "synth";
  jobId: number;
  text: string;
  /** eSpeak voice name, e.g. `hi+f3`. */
  voice: string;
  /** eSpeak words per minute, already within its usable range. */
  rate: number;
  /** Remaining tempo factor applied by time-stretching (1 when the rate covers the speed). */
  tempo: number;
}

export type WorkerMessage =
  { type: "ready" } | { type: "chunk"; jobId: number; pcm: ArrayBuffer } | { type: "done"; jobId: number } | { type: "error"; jobId: number; message: string };

/** Index of the job id a worker should abort, in the shared cancel flag. */
export const CANCEL_SLOT = 0;
