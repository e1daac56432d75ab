/**
 * Revisions and events travel on different streams, so a revision may be applied before an
 * event it corrects (the events stream is busier). The identity a revision gave a track is
 * remembered for ten minutes: an event of that track captured before the revision, still
 * carrying the old identity, is placed under the revised one.
 *
 * Both streams apply their batches in turn (inTurn), planning included: an event planned with
 * the old identity then committed after the revision looked for the rows to correct would keep
 * the wrong person (PostgreSQL runs the two transactions at once). In turn, either the event's
 * rows exist when the revision looks, or the revision is remembered when the event is planned.
 *
 * The memory is also kept in the store (revised-tracks.store.ts, written with the revision):
 * whoever consumes the streams next, after a restart or on another instance, restores it first.
 */
import type { RevisedTrack } from "./revised-tracks.store";

export const REVISION_KEEP_MS = 600_000;
const MAX_TRACKS = 10_000;

interface Revised {
  /** null: the track is nobody known. */
  identity: string | null;
  atMs: number;
  seenMs: number;
}

export class RecentRevisions {
  private readonly byTrack = new Map<string, Revised>();
  private turn: Promise<unknown> = Promise.resolve();

  /** Runs `work` after the work given before it finished (failed or not). */
  inTurn<R>(work: () => Promise<R>): Promise<R> {
    const run = this.turn.then(work, work);
    this.turn = run.catch(() => undefined);
    return run;
  }

  record(phId: string, identity: string | null, atMs: number, nowMs: number): void {
    if (this.byTrack.size >= MAX_TRACKS) this.prune(nowMs);
    this.byTrack.set(phId, { identity, atMs, seenMs: nowMs });
  }

  /** Takes back what the store kept (the revisions of the last ten minutes): the latest per track, unless this memory knows a later one. */
  restore(rows: readonly RevisedTrack[], nowMs: number): void {
    for (const r of [...rows].sort((a, b) => a.recorded_ms - b.recorded_ms)) {
      const known = this.byTrack.get(r.ph_id);
      if (known && known.seenMs > r.recorded_ms) continue;
      this.record(r.ph_id, r.identity_id, r.revised_ms, r.recorded_ms);
    }
    this.prune(nowMs);
  }

  /** The identity to use for a track seen at `atMs` whose snapshot says `identity`. */
  identityOf(phId: string, identity: string | null, atMs: number, nowMs: number): string | null {
    const r = this.byTrack.get(phId);
    if (!r || nowMs - r.seenMs > REVISION_KEEP_MS || atMs > r.atMs) return identity;
    return r.identity;
  }

  private prune(nowMs: number): void {
    for (const [k, v] of this.byTrack) if (nowMs - v.seenMs > REVISION_KEEP_MS) this.byTrack.delete(k);
    if (this.byTrack.size >= MAX_TRACKS) this.byTrack.clear();
  }
}
