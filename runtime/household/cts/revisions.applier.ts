/**
 * `tracking.revisions`: the tracking service corrected whom a track (`ph_id`) is; the history
 * rows it placed under the wrong person are rewritten (household/tracking/track-revision.ts)
 * and `tracking.revised` says whose history changed from when, for the stored daily reports.
 * Revisions without `revision_id` or `ph_id` are dropped, as the original did.
 */
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { reviseTrack } from "../tracking/track-revision";
import { isKnownIdentity, type AfterCommit, type Applier } from "./applier";
import { decodeRevision, nsToMs } from "./cts-codec";
import type { RecentRevisions } from "./recent-revisions";
import { rememberRevisedTrack } from "./revised-tracks.store";
import type { DecodedRevision } from "./cts-messages";

export class RevisionsApplier implements Applier<DecodedRevision, DecodedRevision> {
  constructor(
    private readonly ctx: PlatformContext,
    private readonly recent: RecentRevisions,
  ) {}

  /** In turn with the other stream of identities (RecentRevisions). */
  inTurn<R>(work: () => Promise<R>): Promise<R> {
    return this.recent.inTurn(work);
  }

  decode = decodeRevision;

  key(r: DecodedRevision): string {
    return r.revision_id;
  }

  check(r: DecodedRevision): string | null {
    if (!r.revision_id) return "revision without a revision_id";
    if (!r.ph_id) return "revision without a ph_id";
    return null;
  }

  plan(r: DecodedRevision): Promise<DecodedRevision> {
    return Promise.resolve(r);
  }

  async commit(trx: Knex, r: DecodedRevision): Promise<AfterCommit[]> {
    const identity = r.effective_identity_id || r.new_identity_id || r.map_identity_id;
    const person = isKnownIdentity(identity) ? identity : null;
    const at = isoNow(this.ctx.clock);
    const outcome = await reviseTrack(trx, { ph_id: r.ph_id, revision_id: r.revision_id, new_person_id: person }, at);
    const now = this.ctx.clock.now();
    const revised = { ph_id: r.ph_id, identity_id: person, revised_ms: nsToMs(r.revision_time_unix_ns) ?? now, recorded_ms: now };
    await rememberRevisedTrack(trx, revised);
    const remember = () => this.recent.record(r.ph_id, person, revised.revised_ms, now);
    if (outcome.superseded === 0 || outcome.from === null) return [remember];
    // Everyone's history from the first rewritten row to now may read differently: their
    // stored daily reports of those days are built again (care/services/reports).
    const rewritten = { revision_id: r.revision_id, person_ids: outcome.person_ids, from: outcome.from, to: at };
    return [
      remember,
      () => this.ctx.bus.publish("tracking.revised", rewritten),
      () =>
        this.ctx.log.info(
          { ph_id: r.ph_id, revision_id: r.revision_id, reason: r.reason, ...outcome },
          "tracking: an identity revision rewrote location history",
        ),
    ];
  }
}
