/**
 * The input journal's cost (issue 27 §1): bytes a day for the demo household with its camera
 * streaming all day at the aggregator's rate (a batch of 5 frames every 10 s, the defaults),
 * a sighting and a location change per batch, presence sensors changing every two minutes and
 * a few terminal presses — a worst case: a real camera sends only on motion. The inputs go
 * through the real journal (bus → queue → one transaction per turn) into a fresh SQLite store;
 * the figure is the store's growth, extrapolated from one simulated hour to a day.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { InputJournal } from "../runtime/care/core/journal/input-journal";
import { journalSize } from "../runtime/care/core/journal/journal.store";
import { EventBus } from "../runtime/platform/core/event-bus";
import { ManualClock } from "../runtime/platform/core/clock";
import { createLogger } from "../runtime/platform/core/logger";
import { openStore } from "../runtime/platform/db/store";
import { nowMs, report } from "./support";

const HOUR_S = 3600;
const BATCH_EVERY_S = 10;
const FRAMES = 5;

const frame = (i: number) => `media/${(i % 256).toString(16).padStart(2, "0")}/${"ab12".repeat(16)}.jpg`;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-journal-"));
  const store = await openStore(undefined, dir);
  const bus = new EventBus();
  const clock = new ManualClock(Date.parse("2026-11-20T00:00:00Z"));
  const journal = new InputJournal({ db: store.db, bus, clock, log: createLogger("silent") });
  journal.start();
  const file = path.join(dir, "careflow.db");
  await store.db.raw("pragma wal_checkpoint(TRUNCATE)");
  const sizeBefore = fs.statSync(file).size;

  const t0 = nowMs();
  for (let s = 0; s < HOUR_S; s += BATCH_EVERY_S) {
    clock.set(clock.now() + BATCH_EVERY_S * 1000);
    const n = s / BATCH_EVERY_S;
    const paths = Array.from({ length: FRAMES }, (_, k) => frame(n * FRAMES + k));
    bus.publish("sensor.event", {
      kind: "camera_batch",
      sensor_id: "kitchen_cam",
      room_name: "Kitchen",
      media_paths: paths,
      media_type: "image/jpeg",
      batch_id: n + 1,
    });
    bus.publish("person.sighted", {
      person_id: "rose",
      person_name: "Grandma Rose",
      visitor: false,
      sensor_id: "kitchen_cam",
      room_name: "Kitchen",
      confidence: 0.87,
      bbox: [212, 80, 318, 214],
      at: clock.now(),
      media_path: paths[2],
      direction_raw: "left-to-right",
      direction_semantic: "entering",
    });
    bus.publish("sensor.event", {
      kind: "location",
      sensor_id: "kitchen_cam",
      room_name: "Kitchen",
      input: { person_id: "rose", from_room: "Hallway", to_room: "Kitchen", source: "camera" },
    });
    if (s % 120 === 0)
      bus.publish("sensor.event", { kind: "presence", sensor_id: "hall_motion", room_name: "Hallway", occupied: n % 2 === 0, at: clock.now() });
    if (s % 900 === 0)
      bus.publish("sensor.event", {
        kind: "button",
        sensor_id: "bedside_terminal",
        room_name: "Bedroom",
        input: { source: "terminal", button: "single", command: null, args: [] },
      });
    await journal.flush();
  }
  const elapsed = nowMs() - t0;
  await journal.stop();
  await store.db.raw("pragma wal_checkpoint(TRUNCATE)");
  const size = await journalSize(store.db);
  const grown = fs.statSync(file).size - sizeBefore;
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });

  const perDay = (x: number) => (x * 24) / 1e6;
  report(
    "journal",
    [
      { measure: "entries in one hour (worst case: camera all day)", value: size.rows, unit: "" },
      { measure: "payload a day", value: perDay(size.payload_bytes), unit: "MB" },
      { measure: "store growth a day (SQLite, with index)", value: perDay(grown), unit: "MB" },
      { measure: "at retention_days 14", value: perDay(grown) * 14, unit: "MB" },
      { measure: "journal cost per input", value: (elapsed * 1000) / size.rows, unit: "µs" },
    ],
    {
      entries_per_hour: size.rows,
      payload_mb_per_day: perDay(size.payload_bytes),
      store_mb_per_day: perDay(grown),
      store_mb_14_days: perDay(grown) * 14,
      us_per_input: (elapsed * 1000) / size.rows,
    },
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
