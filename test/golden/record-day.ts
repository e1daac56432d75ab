/**
 * Records the golden day (issue 27 §3): a real app (the demo household, Node-RED, a manual
 * clock) lives through a scripted Wednesday of Grandma Rose's, fed by the fakes: the fake hub's
 * presence sensors over its WebSocket, the kitchen camera's frames over the device endpoint (a
 * batch every ten minutes while she is in the kitchen, not the aggregator's full rate), her
 * sightings in those frames, the bedside terminal, and a night-time movement signal from
 * continuous tracking through the real signals applier (without NATS: the message bytes the
 * fake tracking service publishes, decoded and committed as the stream pump does). The input
 * journal and the location history of the day are written to `test/fixtures/golden/household-day.json`.
 *
 *   npm run build && node dist/test/golden/record-day.js
 *
 * The example rules run live meanwhile, so the prompt answers and alert acknowledgements the
 * journal keeps are those a real day would have had. Sightings are published as the
 * identification step publishes them: no example rule identifies faces, and the builtin face
 * engine would cost a minute for nothing the rules read.
 */
import fs from "node:fs";
import { ManualClock } from "../../runtime/platform/core/clock";
import { journalSize, readEntries } from "../../runtime/care/journal/journal.store";
import { listLocationChangesBetween } from "../../runtime/household/tracking/location-history.store";
import { SignalsApplier } from "../../runtime/household/cts/signals.applier";
import { demoHouse, startFakeHub, type FakeHub } from "../fakes/hub-server";
import { signalBytes } from "../fakes/cts-publisher";
import { cameraPayload, testJpeg } from "../support/jpeg";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";
import { DAY_FROM, DAY_TO, dayFile, type RecordedDay } from "./golden-day";

const MIN = 60_000;
const DAY0 = Date.parse(DAY_FROM);
/** "07:25" on the recorded day, in ms. */
const at = (hhmm: string): number => {
  const [h, m] = hhmm.split(":").map(Number);
  return DAY0 + (h * 60 + m) * MIN;
};

type Room = "kitchen" | "bedroom" | "bathroom" | "hallway" | "living_room";

interface Day {
  t: TestApp;
  hub: FakeHub;
  clock: ManualClock;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the journal has stopped growing (the app has handled what it was given). */
async function quiet(d: Day): Promise<void> {
  let last = -1;
  for (let same = 0; same < 3;) {
    await sleep(60);
    const n = (await journalSize(d.t.app.ctx.db)).rows;
    // Runs still moving count as not quiet: what they write (alerts, answers) comes before the next input, as live.
    same = n === last && (d.t.app.engine?.quiet() ?? true) ? same + 1 : 0;
    last = n;
  }
}

/** Moves the clock to `hhmm`, firing the app's timers on the way, and lets the app settle. */
async function goTo(d: Day, hhmm: string): Promise<void> {
  if (process.env.GOLDEN_VERBOSE) console.error(`${new Date().toISOString()} ${hhmm}`);
  d.clock.set(at(hhmm));
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
  const entries = await readEntries(d.t.app.ctx.db, {
    from: new Date(takenAt).toISOString(),
    to: new Date(d.clock.now() + 1).toISOString(),
    topics: ["sensor.event"],
    limit: 100,
  });
  const batch = entries.map((e) => e.payload as { kind?: string; media_paths?: string[] }).find((p) => p.kind === "camera_batch");
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
  const decoded = applier.decode(signalBytes({ signal_id: signalId, identity_id: "rose", kind, severity: "warning", minutes: 10 }, d.clock.now()));
  if (!decoded.ok) throw new Error(`signal not decoded: ${decoded.reason}`);
  const refused = applier.check(decoded.value);
  if (refused) throw new Error(refused);
  const plan = await applier.plan(decoded.value);
  const after = await d.t.app.ctx.db.transaction((trx) => applier.commit(trx, plan));
  for (const fn of after) fn();
  await quiet(d);
}

/** Rose's Wednesday. */
async function liveTheDay(d: Day): Promise<void> {
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

async function main(): Promise<void> {
  const clock = new ManualClock(DAY0 - 10 * MIN);
  const hub = await startFakeHub({ ...demoHouse(), now: () => clock.now() });
  const t = await startTestApp({ clock, nodeRed: true, demo: true, settings: { hub: { url: hub.url, token: hub.token } } });
  if (process.env.GOLDEN_VERBOSE) console.error(`${new Date().toISOString()} app started`);
  try {
    if (!(await t.app.ctx.hub!.client!.whenConnected(5000))) throw new Error("the app did not connect to the fake hub");
    const d: Day = { t, hub, clock };
    await quiet(d);
    await liveTheDay(d);
    clock.set(Date.parse(DAY_TO));
    await quiet(d);
    const db = t.app.ctx.db;
    const journal = (await readEntries(db, { from: DAY_FROM, to: DAY_TO, limit: 100_000 })).map(({ at, topic, sensor_id, payload }) => ({
      at,
      topic,
      sensor_id,
      payload,
    }));
    const history = (await listLocationChangesBetween(db, "rose", DAY_FROM, DAY_TO)).map(({ id: _id, ...c }) => c);
    const day: RecordedDay = {
      made_by: "npm run build && node dist/test/golden/record-day.js",
      from: DAY_FROM,
      to: DAY_TO,
      journal,
      location_history: history,
    };
    fs.writeFileSync(dayFile(), JSON.stringify(day, null, 1) + "\n");
    // The same day rehearsed in the app that lived it: rehearsal and live should agree.
    for (const rule of (await t.get("/api/v1/rules")).body as Array<{ id: number; name: string }>) {
      const res = await t.post(`/api/v1/rules/${rule.id}/rehearse`, { from: DAY_FROM, to: DAY_TO });
      const diff = res.body.difference as { summary: string } | undefined;
      console.log(`${rule.name}: rehearsed beside live: ${diff?.summary ?? res.text}`);
    }
    const topics = new Map<string, number>();
    for (const e of journal) topics.set(e.topic, (topics.get(e.topic) ?? 0) + 1);
    console.log(`${dayFile()}: ${journal.length} journal entries (${[...topics].map(([k, v]) => `${k} ${v}`).join(", ")}), ${history.length} location changes`);
  } finally {
    await t.close();
    await hub.close();
  }
}

// The app's Node-RED runtime keeps handles open after close: the script ends itself.
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
