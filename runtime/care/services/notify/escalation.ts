/**
 * Escalation: a warning or emergency alert is sent again, the same message through the same
 * channels, every `interval_minutes` up to `repeat_count` times, until someone acknowledges
 * it (dismiss or assist, from `POST /alerts/{id}/action`, a prompt's dismiss, ...).
 *
 * The schedule lives in the alerts table (`next_escalation_at`, `escalation_count`), the
 * message in `notification_json`; timers are only a cache of it. On start every open alert
 * with a `next_escalation_at` is re-armed on the household clock, so a restart loses
 * nothing, and a re-send is claimed by a conditional update before it goes out, so two
 * timers (or two processes) never send the same repetition twice.
 *
 * With several instances the escalator runs on the holder of the `escalation` lease only. Its
 * timers follow the alerts table, re-read every second: an alert raised through another
 * instance is armed there, one acknowledged through another instance is found resolved (or
 * assisted) when its timer fires and is not sent again; a new holder re-arms them all.
 *
 * A repetition is claimed before it is sent, so a stop between the two (kill -9, a lost lease)
 * would lose it. `escalation_sent` is written once its receipts are; an escalator that starts
 * (a restart, a new lease holder) first sends again every repetition claimed and not finished,
 * with the same idempotency key: a repeated message is better than a missed emergency. The
 * claim names its instance: a send a stop cut short is given back at once, and a new holder
 * leaves a claim alone while its claimant may still be sending it (a holder whose lease ran out
 * under load, alive and a moment from finishing); a claimant silent for two leases is gone.
 */
import type { CareContext } from "../../core/context";
import { ADOPT_EVERY_MS, clustered, repeatOnClock } from "../../../platform/cluster/adopt";
import { leasesOf } from "../../../platform/cluster/cluster";
import { instanceAlive } from "../../../platform/cluster/cluster.store";
import { whileHolding } from "../../../platform/cluster/leases";
import { toBool } from "../../../platform/db/json-column";
import {
  claimEscalation,
  clearEscalation,
  endEscalation,
  escalationRow,
  markEscalationSent,
  releaseEscalation,
  scheduledEscalations,
  takeOverEscalation,
  unfinishedEscalations,
  type EscalationRow,
} from "../../../household/alerts/alerts.service";
import type { CareServices } from "../../../../nodes/_kit/care-services";
import { registeredChannel } from "./channels";
import { deliveryWarning, dispatch, type ChannelLookup } from "./dispatch";
import { alertPlan } from "./alert-plan";
import type { NotificationPlan } from "./plan";
import { recordReceipts } from "./notify.service";
import { fallBack, markParts } from "./fallback";
import { channelNames } from "../../core/language/channel-names";
import { withChatTargets } from "../chat/relatives.service";

export interface EscalationHandle {
  /** Cancels the timers and waits for re-sends in progress (they are aborted). */
  stop(): Promise<void>;
  /** Resolves when no re-send or re-arming is in progress (tests wait on this after moving the clock). */
  settled(): Promise<void>;
}

export interface EscalationOptions {
  /** What channel handlers are given (the app's care services). */
  services: CareServices;
  lookup?: ChannelLookup;
}

/** How soon a re-send that failed (store error) is tried again. */
const RETRY_AFTER_FAILURE_MS = 15_000;

/**
 * Starts escalation for the app (createApp starts it once and keeps the handle: one escalator
 * per app, and a second one would send every re-send twice).
 */
export function startEscalation(ctx: CareContext, opts: EscalationOptions): EscalationHandle {
  // One instance: held at once, so the escalator starts here as it always did. The last one
  // started is what `settled()` waits for; once stopped it has nothing in flight, so it need not
  // be forgotten (a lease's onLose always follows its own onAcquire, never a later one's).
  let escalator: Escalator | null = null;
  const stopLease = whileHolding(leasesOf(ctx), "escalation", () => {
    const e = new Escalator(ctx, opts.services, opts.lookup ?? registeredChannel);
    escalator = e;
    e.start();
    return () => e.stop();
  });
  return {
    stop: () => stopLease(),
    settled: async () => {
      await escalator?.settled();
    },
  };
}

class Escalator {
  private readonly timers = new Map<number, () => void>();
  /** The schedule each timer was armed for (cluster: re-armed only when it changed). */
  private readonly armedAt = new Map<number, string>();
  private readonly warned = new Set<number>();
  private readonly inflight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private unsubscribe: Array<() => void> = [];
  private stopFollowing: (() => Promise<void>) | null = null;
  private stopped = false;
  /** Start-up work waiting to be tried again (untilDone). */
  private readonly retries = new Set<() => void>();
  /**
   * The last repetition of each alert this escalator claimed or took over. The look for
   * repetitions a stop cut short runs beside the timers (at the start; with several instances,
   * every second): an overdue one fires at once, and its claim, not yet marked sent, must not be
   * taken for one cut short and sent a second time.
   */
  private readonly claimedHere = new Map<number, number>();
  /** This instance, as claims name it. */
  private readonly me: string;

  constructor(
    private readonly ctx: CareContext,
    private readonly services: CareServices,
    private readonly lookup: ChannelLookup,
  ) {
    this.me = leasesOf(ctx).instanceId;
  }

  start(): void {
    this.unsubscribe = [
      this.ctx.bus.subscribe("alert.created", ({ alert_id }) => this.track(this.armFromStore(alert_id))),
      this.ctx.bus.subscribe("alert.acknowledged", ({ alert_id, action }) => this.track(this.acknowledged(alert_id, action))),
    ];
    if (clustered(this.ctx))
      this.stopFollowing = repeatOnClock(
        this.ctx.clock,
        ADOPT_EVERY_MS,
        () => {
          const following = this.follow();
          this.track(following);
          return following;
        },
        (err) => this.ctx.log.error({ err }, "escalation: reading the schedule failed"),
      );
    else {
      this.untilDone("re-arming the open alerts", () => this.rearmAll());
      this.untilDone("sending again the repetitions a stop cut short", () => this.resumeUnfinished());
    }
  }

  /**
   * Start-up work that cannot read the store now (busy, or not back yet) is tried again shortly
   * on the household clock, until it can: one failed read must not leave every open alert
   * without its re-sends until the next restart.
   */
  private untilDone(what: string, work: () => Promise<void>): void {
    this.track(
      work().catch((err: unknown) => {
        if (this.stopped) throw err;
        this.ctx.log.error({ err, retry_in_seconds: RETRY_AFTER_FAILURE_MS / 1000 }, `escalation: ${what} failed; trying again`);
        const cancel = this.ctx.clock.at(this.ctx.clock.now() + RETRY_AFTER_FAILURE_MS, () => {
          this.retries.delete(cancel);
          this.untilDone(what, work);
        });
        this.retries.add(cancel);
      }),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.stopFollowing?.();
    this.unsubscribe.forEach((off) => off());
    this.timers.forEach((cancel) => cancel());
    this.timers.clear();
    this.retries.forEach((cancel) => cancel());
    this.retries.clear();
    this.abort.abort(new Error("escalation stopped"));
    await this.settled();
  }

  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private track(work: Promise<void>): void {
    const p = work.catch((err: unknown) => this.ctx.log.error({ err }, "escalation failed"));
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  private async rearmAll(): Promise<void> {
    const rows = await scheduledEscalations(this.ctx);
    for (const row of rows) this.arm(row.id, row.next_escalation_at);
    if (rows.length > 0) this.ctx.log.info({ alerts: rows.length }, "escalation re-armed for open alerts");
  }

  /** A repetition claimed by an escalator that stopped before sending it goes out now. */
  private async resumeUnfinished(): Promise<void> {
    const rows = await unfinishedEscalations(this.ctx);
    for (const row of rows) {
      if (this.stopped) return;
      if ((this.claimedHere.get(row.id) ?? 0) >= row.escalation_count) continue;
      if (await this.claimantAtWork(row)) continue;
      // Taken over first: a claimant that finishes meanwhile, or another look, finds it taken.
      if (!(await takeOverEscalation(this.ctx, row.id, row.escalation_count, row.escalation_claimed_by, this.me))) continue;
      this.claimedHere.set(row.id, row.escalation_count);
      this.ctx.log.warn(
        { alert_id: row.id, escalation: row.escalation_count, claimed_by: row.escalation_claimed_by },
        "escalation: a repetition was claimed but not sent before a stop; sending it now",
      );
      await this.send(row.id, alertPlan(this.ctx.settings, row), row.escalation_count, row.next_escalation_at);
    }
  }

  /**
   * May another instance still be sending this claimed repetition? Only with several instances:
   * a claimant other than this one that was alive within the last two leases (its lease may have
   * run out while it sent; it finishes, or gives the claim back when its stop cuts the send short).
   */
  private async claimantAtWork(row: EscalationRow): Promise<boolean> {
    const claimant = row.escalation_claimed_by;
    if (!clustered(this.ctx) || !claimant || claimant === this.me) return false;
    const graceMs = 2 * this.ctx.settings.cluster.lease_seconds * 1000;
    return instanceAlive(this.ctx.db, claimant, this.ctx.clock.now() - graceMs);
  }

  /** Cluster: the schedule as stored, whoever changed it: new alerts armed, acknowledged ones dropped. */
  private async follow(): Promise<void> {
    const rows = await scheduledEscalations(this.ctx);
    const scheduled = new Map(rows.map((r) => [r.id, r.next_escalation_at]));
    for (const [id, cancel] of this.timers) {
      if (scheduled.has(id)) continue;
      cancel();
      this.timers.delete(id);
      this.armedAt.delete(id);
    }
    for (const [id, at] of scheduled) if (this.armedAt.get(id) !== at || !this.timers.has(id)) this.arm(id, at);
    await this.resumeUnfinished();
  }

  private async armFromStore(id: number): Promise<void> {
    const row = await escalationRow(this.ctx, id);
    if (row?.next_escalation_at && !toBool(row.resolved)) this.arm(id, row.next_escalation_at);
  }

  private arm(id: number, atIso: string): void {
    if (this.stopped) return;
    this.timers.get(id)?.();
    const cancel = this.ctx.clock.at(Date.parse(atIso), () => {
      this.timers.delete(id);
      this.armedAt.delete(id);
      this.track(this.fireOrRetry(id));
    });
    this.timers.set(id, cancel);
    this.armedAt.set(id, atIso);
  }

  /** Dismiss resolves the alert (and clears its schedule); assist means someone is on it: no more re-sends either. */
  private async acknowledged(id: number, action: "dismiss" | "assist"): Promise<void> {
    this.timers.get(id)?.();
    this.timers.delete(id);
    this.armedAt.delete(id);
    this.claimedHere.delete(id);
    await clearEscalation(this.ctx, id);
    this.ctx.log.info({ alert_id: id, action }, "alert acknowledged; escalation stopped");
  }

  /**
   * A re-send that fails before its next one is armed (the store busy or down) is tried again
   * shortly: a failed timer would otherwise silence an open emergency until the next restart.
   */
  private async fireOrRetry(id: number): Promise<void> {
    try {
      await this.fire(id);
    } catch (err) {
      if (this.stopped || this.timers.has(id)) throw err;
      const retryAt = new Date(this.ctx.clock.now() + RETRY_AFTER_FAILURE_MS).toISOString();
      this.ctx.log.error({ err, alert_id: id, retry_at: retryAt }, "escalation: re-send failed; trying again");
      this.arm(id, retryAt);
    }
  }

  private async fire(id: number): Promise<void> {
    if (this.stopped) return;
    const row = await escalationRow(this.ctx, id);
    if (!row || !row.next_escalation_at) return;
    if (toBool(row.resolved) || toBool(row.assistance_needed)) {
      // Acknowledged where this escalator did not hear it (another instance): its schedule ends here.
      await clearEscalation(this.ctx, id);
      return;
    }
    const now = this.ctx.clock.now();
    if (now < Date.parse(row.next_escalation_at)) return this.arm(id, row.next_escalation_at);

    const plan = alertPlan(this.ctx.settings, row);
    const esc = plan.escalation;
    const count = row.escalation_count + 1;
    if (!esc || count > esc.repeat_count) {
      await endEscalation(this.ctx, id, row.next_escalation_at);
      return;
    }
    // After an outage the next repetition counts from now: a burst of overdue re-sends helps no one.
    const nextAt = count < esc.repeat_count ? new Date(now + esc.interval_minutes * 60_000).toISOString() : null;
    this.claimedHere.set(id, count);
    if (!(await claimEscalation(this.ctx, row, nextAt, this.me))) return;
    // The claim stored the next time; its timer is armed now, so nothing after this (a slow or
    // failing send, a failed receipt write) can leave the alert without its next re-send.
    if (nextAt) this.arm(id, nextAt);
    await this.send(id, plan, count, nextAt);
  }

  /** Sends repetition `count` and records it sent. */
  private async send(id: number, plan: NotificationPlan, count: number, nextAt: string | null): Promise<void> {
    const esc = plan.escalation;
    // The same as a first send: the fallback when every channel failed, and the failed parts marked.
    const send = {
      hctx: { clock: this.ctx.clock, log: this.ctx.log, services: this.services, signal: this.abort.signal },
      notifications: await withChatTargets(this.ctx, this.ctx.settings.notifications),
    };
    const key = `alert:${id}:escalation:${count}`;
    const own = await dispatch(send, plan, {}, this.lookup, key, { id, escalation: count });
    const receipts = [...own, ...(await fallBack(this.ctx, send, plan, own, this.lookup, key, { id, escalation: count }))];
    await markParts(this.ctx, plan, receipts);
    await recordReceipts(this.ctx, id, count, receipts);
    // A send a stop cut short (a channel not reached) is given back: the next escalator sends it
    // again. A stop after every channel delivered cut nothing short.
    if (this.abort.signal.aborted && receipts.some((r) => !r.delivered)) await releaseEscalation(this.ctx, id, count, this.me);
    else await markEscalationSent(this.ctx, id, count);
    const warning = deliveryWarning(receipts, channelNames(receipts.map((r) => r.channel)));
    // One warning per alert, not one per repetition: later ones are in the info line below.
    if (warning && !this.warned.has(id)) {
      this.warned.add(id);
      const reached = receipts.some((r) => r.delivered);
      this.ctx.log.warn(
        { alert_id: id, escalation: count, warning },
        reached ? "escalation of an open alert fell back" : "escalation of an open alert reached nobody",
      );
    }
    this.ctx.log.info(
      {
        alert_id: id,
        escalation: count,
        of: esc?.repeat_count ?? count,
        delivered: receipts.filter((r) => r.delivered).map((r) => r.channel),
        next_escalation_at: nextAt,
      },
      "alert escalated: notification sent again",
    );
  }
}
