/**
 * The input journal (issue 27): every input that can fire or feed a rule is appended, in the
 * order it arrived and with the app clock's time, to `input_journal`, so a rule can later be
 * rehearsed on a recorded day. It listens on the bus, where every input already passes: sensor
 * events (camera batches as frame references into the media store, terminal presses, hub and
 * presence changes, location changes, tracking fixes as they move people), sightings, prompt
 * answers, alert acknowledgements, webhook calls, chat commands, dementia signals and scene samples.
 *
 * Appending never delays the input: entries are queued and written together on the next turn
 * of the event loop, in one transaction, and under a stream of inputs at most every
 * WRITE_EVERY_MS (a write per turn was a commit per tracking batch, a hundred a second on the
 * connection tracking writes on: issue 26). A write that fails is logged and its entries kept for
 * the next try (bounded: past MAX_PENDING the oldest go, said in the log), so a slow or
 * unavailable store costs history, never a rule.
 */
import type { PlatformContext } from "../../../platform/context";
import type { BusTopics, Topic } from "../../../platform/core/event-bus";
import type { Retention } from "../../../platform/db/retention";
import { appendEncoded, deleteEntriesBefore, encodeEntry, type EncodedEntry } from "./journal.store";

/** The bus topics that are inputs to rules; each entry keeps its topic and payload as published. */
export const JOURNALED_TOPICS = [
  "sensor.event",
  "person.sighted",
  "prompt.answered",
  "alert.acknowledged",
  "webhook.called",
  "chat.command",
  // Continuous tracking: a dementia signal its person's profile lets alert (the signal itself
  // is kept in dementia_signals), and a scene keyframe sample.
  "cts.signal",
  "cts.scene_sample",
] as const satisfies readonly Topic[];

export type JournaledTopic = (typeof JOURNALED_TOPICS)[number];

const MAX_PENDING = 10_000;
/** Between the starts of two writes, at most: what a kill -9 can cost the journal. */
const WRITE_EVERY_MS = 100;

type JournalContext = Pick<PlatformContext, "db" | "bus" | "clock" | "log">;

const sensorOf = (payload: unknown): string | null => {
  const id = (payload as { sensor_id?: unknown } | null)?.sensor_id;
  return typeof id === "string" ? id : null;
};

export class InputJournal {
  private pending: EncodedEntry[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private lastWriteAt = -Infinity;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly ctx: JournalContext) {}

  start(): void {
    for (const topic of JOURNALED_TOPICS) {
      this.unsubscribe.push(this.ctx.bus.subscribe(topic, (payload: BusTopics[typeof topic]) => this.record(topic, payload)));
    }
  }

  /** Queues one input; written on the next turn of the event loop, or with the others once WRITE_EVERY_MS has passed since the last write. */
  record(topic: JournaledTopic, payload: unknown): void {
    let entry: EncodedEntry;
    try {
      // Encoded now, as it was published: one string to hold until the write, not a copy of
      // the payload's objects (at 2,000 tracking events a second they outlived a collection).
      entry = encodeEntry({ at: new Date(this.ctx.clock.now()).toISOString(), topic, sensor_id: sensorOf(payload), payload });
    } catch (err) {
      this.ctx.log.warn({ err, topic }, "input journal: an input that cannot be written as JSON was not recorded");
      return;
    }
    this.pending.push(entry);
    if (this.pending.length > MAX_PENDING) {
      const dropped = this.pending.splice(0, this.pending.length - MAX_PENDING);
      this.ctx.log.warn({ dropped: dropped.length, oldest: dropped[0]?.at }, "input journal: store not keeping up; oldest entries dropped");
    }
    if (!this.scheduled) {
      this.scheduled = true;
      // Real time, not the app clock: this paces writes to the store, not the household's day.
      const wait = this.lastWriteAt + WRITE_EVERY_MS - performance.now();
      const write = () => {
        this.scheduled = false;
        this.lastWriteAt = performance.now();
        void this.flush();
      };
      if (wait > 0) setTimeout(write, wait);
      else setImmediate(write);
    }
  }

  /** Inputs waiting to be written (GET /metrics reads it). */
  get queued(): number {
    return this.pending.length;
  }

  /** Writes what is queued (after any write under way); resolves when it is stored or given back to the queue. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.pending;
      if (!batch.length) return;
      this.pending = [];
      try {
        await appendEncoded(this.ctx.db, batch);
      } catch (err) {
        this.ctx.log.warn({ err, entries: batch.length }, "input journal: write failed; kept for the next try");
        this.pending = [...batch, ...this.pending];
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    await this.flush();
  }
}

export const journalRetention = (ctx: Pick<PlatformContext, "db" | "settings">): Retention => ({
  what: "input journal",
  days: ctx.settings.journal.retention_days,
  deleteBefore: (cutoff, signal) => deleteEntriesBefore(ctx.db, cutoff, signal),
});
