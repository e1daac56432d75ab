/**
 * A run's camera frames, the first half of the frame-to-spoken-alert trace: the frames whose
 * batch started it (the trigger's media paths) and the images each model step sent (its
 * trace), each with a signed URL while the media store keeps it. Read when a run is looked
 * at, not stored with it: a URL expires, and the run keeps the paths, which name the frames.
 */
import { frameViewLists, type FrameView } from "../../../../household/media/frame-views";
import type { MediaContext } from "../../../../household/media/media.service";
import type { ExecutionRow } from "../engine/execution-rows";
import type { StepRecord } from "../engine/run-state";
import { envelope } from "./runs.service";

export interface RunFrames {
  /** The frames that started the run. */
  frames: FrameView[];
  /** Each of the run's step records (by identity) → the images it sent; records that sent none are absent. */
  images: ReadonlyMap<StepRecord, FrameView[]>;
}

export async function runFrames(ctx: MediaContext, r: ExecutionRow): Promise<RunFrames> {
  const sent = r.step_records.flatMap((rec) => (rec.trace?.images?.length ? [{ rec, paths: rec.trace.images }] : []));
  const trigger = r.trigger_context;
  const [frames, ...perStep] = await frameViewLists(ctx, [
    // A frame is the trigger camera's, captured by the time the run (or the step) started.
    { paths: trigger.media_paths ?? [], hint: { sensor_id: trigger.sensor_id, at: r.started_at } },
    ...sent.map((s) => ({ paths: s.paths, hint: { sensor_id: trigger.sensor_id, at: s.rec.started_at } })),
  ]);
  return { frames, images: new Map(sent.map((s, i) => [s.rec, perStep[i]])) };
}

/** One run's PipelineRunEnvelope with its frames: `frames`, and `images` on each step. */
export function framedEnvelope(r: ExecutionRow, f: RunFrames) {
  const base = envelope(r);
  return { ...base, steps: base.steps.map((s, i) => ({ ...s, images: f.images.get(r.step_records[i]) ?? [] })), frames: f.frames };
}
