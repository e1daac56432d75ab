/**
 * Grandma Rose's scripted day (the golden day's script, issue 27 §3): a real app (the demo
 * household, Node-RED, a manual clock) fed by the fakes: the fake hub's presence sensors over
 * its WebSocket, the kitchen camera's frames over the device endpoint (a batch every ten minutes
 * while she is in the kitchen, not the aggregator's full rate), her sightings in those frames,
 * the bedside terminal, and a night-time movement signal from continuous tracking through the
 * real signals applier (without NATS: the message bytes the fake tracking service publishes,
 * decoded and committed as the stream pump does). `record-day.ts` records it once; the year
 * bench (bench/year.bench.ts) lives it 365 times, each day moved by a jitter.
 *
 * Sightings are published as the identification step publishes them: no example rule
 * identifies faces, and the builtin face engine would cost a minute for nothing the rules read.
 */
import type { ManualClock } from "../../runtime/platform/core/clock";
import { journalSize, readEntries } from "../../runtime/care/core/journal/journal.store";
import { SignalsApplier } from "../../runtime/household/cts/signals.applier";
import type { FakeHub } from "../fakes/hub-server";
import { signalBytes } from "../fakes/cts-publisher";
import { cameraPayload, testJpeg } from "../support/jpeg";
import { KEYS, type TestApp } from "../support/test-app";

export const MIN = 60_000;

/** "07:25" on the day `d` lives, in ms, moved by its jitter. */
const at = (d: Day, hhmm: string): number => {
  const [h, m] = hhmm.split(":").map(Number);
  return d.day0 + (h * 60 + m) * MIN + (d.jitter?.(hhmm) ?? 0);
};

type Room = "kitchen" | "bedroom" | "bathroom" | "hallway" | "living_room";

export interface Day {
  t: TestApp;
  hub: FakeHub;
  clock: ManualClock;
  /** Midnight of the day lived (the recorded day: DAY_FROM). */
  day0: number;
  /** Ms added to a step's time (the year bench's jitter); the clock never goes back. */
  jitter?: (hhmm: string) => number;
  /** Polls of the journal, this many ms apart, that must agree before the app counts as quiet. */
  pollMs?: number;
  /** Added to the tracking signal's id: each day lived has its own signal. */
  idSuffix?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the journal has stopped growing (the app has handled what it was given). */
export async function quiet(d: Day): Promise<void> {
  let last = -1;
  for (let same = 0; same < 3;) {
    await sleep(d.pollMs ?? 60);
    const n = (await journalSize(d.t.app.ctx.db)).rows;
    // Runs still moving count as not quiet: what they write (alerts, answers) comes before the next input, as live.
    same = n === last && (d.t.app.engine?.quiet() ?? true) ? same + 1 : 0;
    last = n;
  }
}

/** Moves the clock to `hhmm`, firing the app's timers on the way, and lets the app settle. */
export async function goTo(d: Day, hhmm: string): Promise<void> {
  if (process.env.GOLDEN_VERBOSE) console.error(`${new Date().toISOString()} ${hhmm}`);
  d.clock.set(Math.max(d.clock.now(), at(d, hhmm)));
  await quiet(d);
}

async function presence(d: Day, hhmm: string, room: Room, on: boolean): Promise<void> {
  await goTo(d, hhmm);
  d.hub.setState(`binary_sensor.${room}_presence`, on ? "on" : "off");
  await quiet(d);
}

let frameSeed = 0;

/** Two frames of the kitchen camera (one batch when the aggregator's window closes), and Rose seen in them. */
async function kitchenBatch(d: Day, hhmm: string, direction: "entering" | "stationary" | "exiting"): Promise<void> {
  await goTo(d, hhmm);
  const takenAt = d.clock.now();
  for (let i = 0; i < 2; i++) {
    const res = await d.t.request("POST", "/api/v1/device/camera", { key: KEYS.camera, body: cameraPayload(await testJpeg(160, 120, frameSeed++)) });
    if (res.status !== 200) throw new Error(`camera frame refused: ${res.status} ${res.text}`);
  }
  // The aggregator's window (10 s) closes: the batch is published.
  d.clock.set(takenAt + 11_000);
  await quiet(d);
  const published = async () => {
    const entries = await readEntries(d.t.app.ctx.db, {
      from: new Date(takenAt).toISOString(),
      to: new Date(d.clock.now() + 1).toISOString(),
      topics: ["sensor.event"],
      limit: 100,
    });
    return entries.map((e) => e.payload as { kind?: string; media_paths?: string[] }).find((p) => p.kind === "camera_batch");
  };
  // Storing the frames may outlast a short quiet (the year bench polls every 10 ms).
  let batch = await published();
  for (let waited = 0; !batch && waited < 5000; waited += 20) {
    await sleep(20);
    batch = await published();
  }
  if (!batch?.media_paths?.length) throw new Error(`no camera batch at ${hhmm}`);
  // What the identification step publishes for the batch: the face's frame and the direction across the frames.
  const raw = { entering: "left-to-right", exiting: "right-to-left", stationary: "stationary" }[direction];
  d.t.app.ctx.bus.publish("person.sighted", {
    person_id: "rose",
    person_name: "Grandma Rose",
    visitor: false,
    sensor_id: "kitchen_cam",
    room_name: "kitchen",
    confidence: 0.86,
    bbox: [52, 20, 98, 74],
    at: takenAt,
    media_path: batch.media_paths[0],
    direction_raw: raw,
    direction_semantic: direction,
  });
  await quiet(d);
}

async function terminal(d: Day, hhmm: string, button: "single" | "long"): Promise<void> {
  await goTo(d, hhmm);
  const res = await d.t.request("POST", "/api/v1/device/terminal", { key: KEYS.terminal, body: { button } });
  if (res.status !== 200) throw new Error(`terminal press refused: ${res.status} ${res.text}`);
  await quiet(d);
}

/** A dementia signal through the real applier, as the stream pump applies one (NATS aside). */
async function trackingSignal(d: Day, hhmm: string, kind: string, signalId: string): Promise<void> {
  await goTo(d, hhmm);
  const applier = new SignalsApplier(d.t.app.ctx);
  const decoded = applier.decode(
    signalBytes({ signal_id: signalId + (d.idSuffix ?? ""), identity_id: "rose", kind, severity: "warning", minutes: 10 }, d.clock.now()),
  );
  if (!decoded.ok) throw new Error(`signal not decoded: ${decoded.reason}`);
  const refused = applier.check(decoded.value);
  if (refused) throw new Error(refused);
  const plan = await applier.plan(decoded.value);
  const after = await d.t.app.ctx.db.transaction((trx) => applier.commit(trx, plan));
  for (const fn of after) fn();
  await quiet(d);
}

/** Rose's Wednesday. */
export async function liveTheDay(d: Day): Promise<void> {
  await presence(d, "00:00", "bedroom", true);
  // A trip to the toilet at night: the hallway twice, 9 minutes apart.
  await presence(d, "02:30", "hallway", true);
  await presence(d, "02:31", "bathroom", true);
  await presence(d, "02:31", "hallway", false);
  await presence(d, "02:38", "bathroom", false);
  await presence(d, "02:39", "hallway", true);
  await presence(d, "02:40", "hallway", false);
  await trackingSignal(d, "02:41", "nighttime_movement", "sig-golden-night-1");
  // She gets up, and stays in the bathroom long enough to be asked; nobody answers; she presses the terminal.
  await presence(d, "07:00", "bedroom", false);
  await presence(d, "07:01", "hallway", true);
  await presence(d, "07:02", "bathroom", true);
  await presence(d, "07:02", "hallway", false);
  await goTo(d, "07:22");
  await goTo(d, "07:23");
  await goTo(d, "07:24");
  await terminal(d, "07:25", "single");
  await presence(d, "07:28", "bathroom", false);
  await presence(d, "07:29", "kitchen", true);
  // Breakfast, on the kitchen camera.
  await kitchenBatch(d, "07:30", "entering");
  await kitchenBatch(d, "07:40", "stationary");
  await kitchenBatch(d, "07:50", "stationary");
  await kitchenBatch(d, "08:00", "exiting");
  await presence(d, "08:05", "kitchen", false);
  await presence(d, "08:06", "living_room", true);
  // No medication recorded this morning: the 10:00 reminder.
  await goTo(d, "10:00");
  await goTo(d, "10:01");
  // Lunch, and a short bathroom visit after it.
  await presence(d, "12:29", "kitchen", true);
  await presence(d, "12:29", "living_room", false);
  await kitchenBatch(d, "12:30", "entering");
  await kitchenBatch(d, "12:40", "stationary");
  await presence(d, "12:50", "kitchen", false);
  await presence(d, "12:51", "bathroom", true);
  await presence(d, "13:00", "bathroom", false);
  await presence(d, "13:01", "living_room", true);
  // A long afternoon visit: asked, no answer, the family alerted; she asks for help on the terminal.
  await presence(d, "15:00", "living_room", false);
  await presence(d, "15:00", "bathroom", true);
  await goTo(d, "15:20");
  await goTo(d, "15:21");
  await goTo(d, "15:22");
  await terminal(d, "15:23", "long");
  await presence(d, "15:35", "bathroom", false);
  await presence(d, "15:36", "living_room", true);
  // Bed, and up again before midnight: the hallway twice, 11 minutes apart.
  await presence(d, "21:45", "living_room", false);
  await presence(d, "21:45", "bedroom", true);
  await presence(d, "23:40", "hallway", true);
  await presence(d, "23:41", "bedroom", false);
  await presence(d, "23:42", "bathroom", true);
  await presence(d, "23:42", "hallway", false);
  await presence(d, "23:50", "bathroom", false);
  await presence(d, "23:51", "hallway", true);
  await presence(d, "23:52", "hallway", false);
  await presence(d, "23:52", "bedroom", true);
  await goTo(d, "23:59");
}
