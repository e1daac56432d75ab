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
 */

const KEEP_MS = 600_000;
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

  /** The identity to use for a track seen at `atMs` whose snapshot says `identity`. */
  identityOf(phId: string, identity: string | null, atMs: number, nowMs: number): string | null {
    const r = this.byTrack.get(phId);
    if (!r || nowMs - r.seenMs > KEEP_MS || atMs > r.atMs) return identity;
    return r.identity;
  }

  private prune(nowMs: number): void {
    for (const [k, v] of this.byTrack) if (nowMs - v.seenMs > KEEP_MS) this.byTrack.delete(k);
    if (this.byTrack.size >= MAX_TRACKS) this.byTrack.clear();
  }
}
