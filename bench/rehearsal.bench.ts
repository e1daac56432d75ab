/**
 * Rehearsal (issue 27 §2): "a day of the demo household rehearsed in < 5 s". The demo
 * household's example rules, each rehearsed over one recorded day: the kitchen camera sending a
 * batch every 10 s all day with a sighting and a location change each (the journal's worst
 * case, ~26,000 entries), the presence sensors changing (the hallway every 2 minutes, the
 * bathroom with a 25-minute stay at night and short visits by day, the bedroom at getting up),
 * terminal presses, and Rose's location history. The figure is the wall time of one rule's
 * rehearsal of the whole day (journal read, scratch household, replay, comparison).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createApp } from "../runtime/app/app";
import { rehearseRule } from "../runtime/care/surfaces/rehearsal/rehearse.service";
import { appendEntries, type NewEntry } from "../runtime/care/core/journal/journal.store";
import { listRules } from "../runtime/care/core/rules/rule-read";
import { appendLocationChange } from "../runtime/household/tracking/location-history.store";
import { ManualClock } from "../runtime/platform/core/clock";
import { nodeRedHost } from "../runtime/platform/nodered/host";
import { createLogger } from "../runtime/platform/core/logger";
import { buildSettings } from "../runtime/platform/config/load-settings";
import { nowMs, report, type BenchRow } from "./support";

const DAY0 = Date.parse("2026-11-19T23:00:00Z"); // local midnight in the demo's zone (Europe/Berlin)
const S = 1000;
const TARGET_S = 5;

const iso = (ms: number) => new Date(ms).toISOString();
const presence = (at: number, sensor: string, room: string, occupied: boolean): NewEntry => ({
  at: iso(at),
  topic: "sensor.event",
  sensor_id: sensor,
  payload: { kind: "presence", sensor_id: sensor, room_name: room, occupied, at },
});

/** One recorded day of the demo household, in time order. */
function recordedDay(): NewEntry[] {
  const out: NewEntry[] = [];
  for (let t = 0; t < 86_400; t += 10) {
    const at = DAY0 + t * S;
    const paths = Array.from({ length: 5 }, (_, k) => `media/${((t + k) % 256).toString(16).padStart(2, "0")}/${"ab12".repeat(16)}.jpg`);
    out.push({
      at: iso(at),
      topic: "sensor.event",
      sensor_id: "kitchen_cam",
      payload: { kind: "camera_batch", sensor_id: "kitchen_cam", room_name: "kitchen", media_paths: paths, media_type: "image/jpeg", batch_id: t / 10 + 1 },
    });
    out.push({
      at: iso(at),
      topic: "person.sighted",
      sensor_id: "kitchen_cam",
      payload: {
        person_id: "rose",
        person_name: "Grandma Rose",
        visitor: false,
        sensor_id: "kitchen_cam",
        room_name: "kitchen",
        confidence: 0.87,
        bbox: [1, 2, 3, 4],
        at,
        media_path: paths[2],
        direction_raw: null,
        direction_semantic: null,
      },
    });
    out.push({
      at: iso(at),
      topic: "sensor.event",
      sensor_id: "kitchen_cam",
      payload: { kind: "location", sensor_id: "kitchen_cam", room_name: "kitchen", input: { person_id: "rose", to_room: "kitchen" } },
    });
    if (t % 120 === 0) out.push(presence(at, "binary_sensor.hallway_presence", "hallway", (t / 120) % 2 === 0));
    if (t % 900 === 0)
      out.push({
        at: iso(at),
        topic: "sensor.event",
        sensor_id: "bedside_terminal",
        payload: {
          kind: "button",
          sensor_id: "bedside_terminal",
          room_name: "bedroom",
          input: { source: "terminal", button: "single", command: null, args: [] },
        },
      });
  }
  // The bathroom: a long stay at 03:10 (25 min), short visits every two hours by day; getting up at 07:30.
  out.push(presence(DAY0 + 3 * 3600 * S + 600 * S, "binary_sensor.bathroom_presence", "bathroom", true));
  out.push(presence(DAY0 + 3 * 3600 * S + 2100 * S, "binary_sensor.bathroom_presence", "bathroom", false));
  for (let h = 8; h < 22; h += 2) {
    out.push(presence(DAY0 + h * 3600 * S, "binary_sensor.bathroom_presence", "bathroom", true));
    out.push(presence(DAY0 + h * 3600 * S + 300 * S, "binary_sensor.bathroom_presence", "bathroom", false));
  }
  out.push(presence(DAY0 + 7.5 * 3600 * S, "binary_sensor.bedroom_presence", "bedroom", false));
  return out.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-rehearsal-"));
  const clock = new ManualClock(DAY0 + 86_400 * S + 60 * S);
  const settings = buildSettings({ auth: { api_keys: [{ key: "bench-admin-key-01", name: "bench", permissions: ["admin"] }] } });
  const app = await createApp({
    config: { port: 0, dataDir, databaseUrl: process.env.CAREFLOW_BENCH_DATABASE_URL, settingsFile: undefined, settings },
    clock,
    log: createLogger("error"),
    nodeRed: true,
    demo: true,
  });
  const rows: BenchRow[] = [];
  const figures: Record<string, unknown> = {};
  try {
    const day = recordedDay();
    for (let i = 0; i < day.length; i += 2000) await appendEntries(app.ctx.db, day.slice(i, i + 2000));
    for (const [h, room] of [
      [0, "bedroom"],
      [3.15, "bathroom"],
      [3.6, "bedroom"],
      [7.5, "kitchen"],
      [12, "living room"],
      [18, "kitchen"],
      [22, "bedroom"],
    ] as const) {
      await appendLocationChange(app.ctx.db, {
        person_id: "rose",
        room_id: null,
        room_name: room,
        source: "camera",
        confidence: 0.9,
        direction_semantic: null,
        timestamp: iso(DAY0 + h * 3600 * S),
        mean_quality: null,
        quality_samples: 0,
      });
    }
    rows.push({ measure: "recorded inputs in the day", value: day.length, unit: "" });
    figures.inputs = day.length;
    let worst = 0;
    for (const rule of await listRules(app.ctx, false)) {
      const t0 = nowMs();
      const hours = Number(process.env.REHEARSAL_BENCH_HOURS ?? 24);
      const answer = await rehearseRule(app.ctx, rule.id, { from: iso(DAY0), to: iso(DAY0 + hours * 3600 * S) });
      const seconds = (nowMs() - t0) / 1000;
      worst = Math.max(worst, seconds);
      rows.push({
        measure: `${rule.name}: a day rehearsed (${answer.rehearsed.length} runs, ${answer.inputs_replayed} inputs)`,
        value: seconds,
        unit: "s",
        target: `< ${TARGET_S}`,
        ok: seconds < TARGET_S,
      });
      figures[`s_${rule.name.toLowerCase().replace(/[^a-z]+/g, "_")}`] = Number(seconds.toFixed(2));
    }
    figures.worst_s = Number(worst.toFixed(2));
  } finally {
    await app.close();
    // Node-RED is the process's, not the app's (as main.ts stops it): left running, its editor's
    // heartbeat timer kept this process, and `npm run bench` after it, waiting for ever.
    await nodeRedHost.shutdown();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const load = os.loadavg()[0];
  rows.push({ measure: "load average (1 min)", value: load, unit: `${os.cpus().length} cpus` });
  figures.load_avg_1m = Number(load.toFixed(2));
  report("rehearsal", rows, figures);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
