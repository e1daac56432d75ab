/**
 * The tracking bench's fake tracking service, in a process of its own as the real one is (so
 * careflow's CPU time per event can be measured apart from it): publishes `total` tracking events at `rate` a second, evenly (a few every 10 ms),
 * without waiting for each acknowledgement (at most MAX_OUTSTANDING unacknowledged), so neither
 * its own round trips nor careflow's work on the main thread slow it down. Event j moves person
 * j % people to the other room. Sends back when each event was sent (process.hrtime: the
 * machine's monotonic clock, the same in every process) and how fast the broker acknowledged
 * them. It stays up between runs (the warm-up's and the measured pass's).
 */
import { CtsPublisher } from "../test/fakes/cts-publisher";
import { nowMs } from "./support";

export interface PublisherInput {
  url: string;
  prefix: string;
  rate: number;
  total: number;
  people: string[];
  rooms: string[];
  /** Event ids are `<idPrefix>-<j>`: a warm-up and the measured pass must not share ids (the broker would drop them as duplicates). */
  idPrefix: string;
}

export interface PublisherOutput {
  /** sentAt[j]: when event j was handed to the client (ms, process.hrtime). */
  sentAt: number[];
  startedAt: number;
  /** Events acknowledged by the broker a second. */
  published: number;
}

const SLOT_MS = 10;
const MAX_OUTSTANDING = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

async function run(input: PublisherInput): Promise<PublisherOutput> {
  const pub = await CtsPublisher.connect(input.url, input.prefix);
  const sentAt: number[] = new Array<number>(input.total);
  const outstanding = new Set<Promise<unknown>>();
  const perSlot = Math.max(1, Math.round((input.rate * SLOT_MS) / 1000));
  const startedAt = nowMs();
  try {
    for (let i = 0; i < input.total; i += perSlot) {
      await sleep(startedAt + (i / input.rate) * 1000 - nowMs());
      for (let j = i; j < Math.min(input.total, i + perSlot); j++) {
        while (outstanding.size >= MAX_OUTSTANDING) await Promise.race(outstanding);
        const person = input.people[j % input.people.length];
        const room = input.rooms[Math.floor(j / input.people.length) % input.rooms.length];
        sentAt[j] = nowMs();
        const p = pub.event({
          camera_id: `cam-${j % 4}`,
          room_name: room,
          people: [{ ph_id: `ph-${person}`, identity_id: person }],
          event_id: `${input.idPrefix}-${j}`,
        });
        const tracked: Promise<unknown> = p.finally(() => outstanding.delete(tracked));
        outstanding.add(tracked);
      }
    }
    await Promise.all(outstanding);
    return { sentAt, startedAt, published: (input.total / (nowMs() - startedAt)) * 1000 };
  } finally {
    await pub.close();
  }
}

// One run per message, so the warm-up and the measured pass share a process warmed like the
// long-running tracking service it stands for; the parent disconnecting ends it.
process.on("message", (input: PublisherInput) => {
  run(input).then(
    (out) => process.send?.({ ok: true, out }),
    (err: unknown) => process.send?.({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }, () => process.exit(1)),
  );
});
process.on("disconnect", () => process.exit(0));
