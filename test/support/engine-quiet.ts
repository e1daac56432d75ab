/**
 * Proof that the pipeline engine has done all it was going to do: no run moving, no parked run
 * being read back or claimed, and every queued run state written. After `clock.advance(...)`
 * (whose due timers fire inside the call) this is what a "the run did not resume" check waits
 * on instead of a sleep: a resume that fell due would keep the engine busy until it was written.
 */
import type { PipelineEngine } from "../../runtime/care/core/pipeline/engine/engine";
import { eventually } from "./eventually";

/** Resolves once `engine` is quiet and its queued writes are in the store. */
export async function engineQuiet(engine: PipelineEngine | undefined): Promise<void> {
  if (!engine) throw new Error("the app runs no pipeline engine");
  await eventually("the engine quiet", () => engine.quiet());
  await engine.store.flushQueued();
}
