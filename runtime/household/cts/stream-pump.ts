/**
 * One stream's messages, applied in order and acknowledged only after their change committed.
 * Messages that arrive while a batch is being applied wait and go together in the next
 * transaction (so 2,000 events a second cost a few hundred commits, not 2,000); a batch that
 * fails is applied again one message at a time so one bad message cannot hold the others.
 * Streams whose batches read what another's write (events and revisions) plan and commit in
 * turn (Applier.inTurn).
 *
 * - not decodable: kept as a dead letter, terminated (never redelivered);
 * - dropped by the original's rules (stale, incomplete): counted, logged, acknowledged;
 * - applied before (a redelivery after a crash): acknowledged, nothing changes;
 * - failing to apply: redelivered after a pause, up to `cts.max_deliver` deliveries, then kept
 *   as a dead letter too. Nothing is dropped silently.
 */
import type { JsMsg } from "@nats-io/jetstream";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { WriteBatch } from "../../platform/db/write-batch";
import type { AfterCommit, Applier } from "./applier";
import { ledgerKey, markAppliedMany, recordDeadLetter } from "./cts-ledger.store";
import type { StreamCounters } from "./cts-status";
import type { StreamNames } from "./cts-streams";

const MAX_BATCH = 500;
const RETRY_PAUSE_MS = 1000;

interface Decoded {
  msg: JsMsg;
  key: string;
  value: unknown;
}

interface Planned {
  msg: JsMsg;
  key: string;
  plan: unknown;
}

export class StreamPump {
  private queue: JsMsg[] = [];
  private working: Promise<void> | null = null;
  private lastDropLog = 0;

  constructor(
    private readonly ctx: PlatformContext,
    readonly names: StreamNames,
    private readonly applier: Applier<unknown, unknown>,
    private readonly counters: StreamCounters,
  ) {}

  push(msg: JsMsg): void {
    this.counters.received++;
    this.queue.push(msg);
    this.kick();
  }

  /** Messages received and not yet taken into a batch (GET /metrics reads it). */
  get queued(): number {
    return this.queue.length;
  }

  /** Resolves when every message received so far was handled; for tests and shutdown. */
  async idle(): Promise<void> {
    while (this.working) await this.working;
  }

  private kick(): void {
    if (this.working) return;
    this.working = this.drain().finally(() => {
      this.working = null;
      if (this.queue.length) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.handle(batch);
      } catch (err) {
        // Reached only when the store itself fails: nothing was acknowledged, the broker redelivers.
        this.ctx.log.error({ err, stream: this.names.stream }, "tracking: a batch could not be handled; the broker will redeliver it");
        for (const m of batch) m.nak(RETRY_PAUSE_MS);
      }
    }
  }

  private async handle(batch: JsMsg[]): Promise<void> {
    const decoded: Decoded[] = [];
    for (const msg of batch) {
      const d = await this.prepare(msg);
      if (d) decoded.push(d);
    }
    if (decoded.length === 0) return;
    if (this.applier.prepare) {
      try {
        await this.applier.prepare(decoded.map((d) => d.value));
      } catch (err) {
        // plan reads what it still lacks and settles each message it cannot plan.
        this.ctx.log.debug({ err, stream: this.names.stream }, "tracking: reading ahead for a batch failed");
      }
    }
    const inTurn = this.applier.inTurn?.bind(this.applier) ?? (<R>(work: () => Promise<R>) => work());
    await inTurn(async () => {
      const planned: Planned[] = [];
      for (const d of decoded) {
        const p = await this.plan(d);
        if (p) planned.push(p);
      }
      if (planned.length === 0) return;
      try {
        await this.commit(planned);
      } catch (err) {
        if (planned.length === 1) return this.failed(planned[0], err);
        for (const p of planned) {
          try {
            await this.commit([p]);
          } catch (one) {
            await this.failed(p, one);
          }
        }
      }
    });
  }

  /** Decodes and checks; null when the message was settled here (dead letter, dropped). */
  private async prepare(msg: JsMsg): Promise<Decoded | null> {
    const decoded = this.applier.decode(msg.data);
    if (!decoded.ok) {
      await this.deadLetter(msg, decoded.reason);
      return null;
    }
    const dropped = this.applier.check(decoded.value, this.ctx.clock.now());
    if (dropped) {
      this.drop(dropped);
      msg.ack();
      return null;
    }
    return { msg, key: this.applier.key(decoded.value) ?? `seq:${msg.seq}`, value: decoded.value };
  }

  private async plan(d: Decoded): Promise<Planned | null> {
    try {
      return { msg: d.msg, key: d.key, plan: await this.applier.plan(d.value) };
    } catch (err) {
      await this.failed({ msg: d.msg, key: d.key, plan: null }, err);
      return null;
    }
  }

  /**
   * One transaction for the batch: which messages are new is one statement for all of them
   * (cts_applied), their effects as few as the applier can (commitMany); acknowledged after.
   */
  private async commit(items: Planned[]): Promise<void> {
    const at = isoNow(this.ctx.clock);
    const after: AfterCommit[] = [];
    let applied = 0;
    await this.ctx.db.transaction(async (trx) => {
      const batch = new WriteBatch(trx, { asyncCommit: this.applier.asyncCommit });
      const [fresh, read] = await Promise.all([
        markAppliedMany(
          trx,
          this.names.stream,
          items.map((i) => i.key),
          at,
        ),
        this.applier.readForCommit?.(
          trx,
          items.map((i) => i.plan),
        ),
      ]);
      // A key twice in the batch (a redelivery next to its original) is applied once.
      const plans = items.filter((i) => fresh.delete(ledgerKey(i.key))).map((i) => i.plan);
      applied = plans.length;
      if (this.applier.commitMany) after.push(...(await this.applier.commitMany(trx, plans, batch, read)));
      else for (const plan of plans) after.push(...(await this.applier.commit(trx, plan, batch)));
      await batch.run();
    });
    for (const item of items) item.msg.ack();
    this.counters.applied += applied;
    this.counters.duplicates += items.length - applied;
    for (const effect of after) {
      try {
        effect();
      } catch (err) {
        this.ctx.log.error({ err, stream: this.names.stream }, "tracking: an effect after a commit failed");
      }
    }
  }

  private async failed(item: Planned, err: unknown): Promise<void> {
    const deliveries = item.msg.info.deliveryCount;
    const reason = err instanceof Error ? err.message : String(err);
    if (deliveries >= this.ctx.settings.cts.max_deliver) {
      await this.deadLetter(item.msg, `not applied after ${deliveries} deliveries: ${reason}`);
      return;
    }
    this.ctx.log.warn({ err, stream: this.names.stream, seq: item.msg.seq, deliveries }, "tracking: a message was not applied; it will be redelivered");
    item.msg.nak(RETRY_PAUSE_MS * deliveries);
  }

  private async deadLetter(msg: JsMsg, reason: string): Promise<void> {
    await recordDeadLetter(this.ctx.db, {
      stream: this.names.stream,
      subject: msg.subject,
      stream_seq: msg.seq,
      deliveries: msg.info.deliveryCount,
      reason,
      payload_base64: Buffer.from(msg.data).toString("base64"),
      received_at: isoNow(this.ctx.clock),
    });
    this.counters.dead_letters++;
    this.ctx.log.warn({ stream: this.names.stream, seq: msg.seq, reason }, "tracking: a message was kept as a dead letter");
    msg.term(reason.slice(0, 200));
  }

  /** Counted always; logged at most every 10 s per stream (a stale burst after an outage is thousands). */
  private drop(reason: string): void {
    this.counters.dropped++;
    this.counters.last_drop = reason;
    const now = this.ctx.clock.now();
    if (now - this.lastDropLog >= 10_000) {
      this.lastDropLog = now;
      this.ctx.log.info({ stream: this.names.stream, dropped: this.counters.dropped, reason }, "tracking: a message was dropped");
    }
  }
}
