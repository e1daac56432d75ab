/**
 * A scripted household day as the tracking service would report it, for `npm run fake-cts`
 * and the tests: Rose gets up, makes breakfast, paces the hallway at 3 a.m. and sits still
 * too long in the afternoon. Each step has its time of day (seconds after midnight); the
 * player keeps the gaps (divided by the speed) and stamps messages with the time it sends
 * them, since the consumer drops tracking events older than `cts.stale_seconds`.
 */
import type { EventSpec, RevisionSpec, SignalSpec } from "./cts-publisher";

export type ScriptStep =
  | { at_s: number; say: string; kind: "event"; event: Omit<EventSpec, "at"> }
  | { at_s: number; say: string; kind: "signal"; signal: Omit<SignalSpec, "at"> }
  | { at_s: number; say: string; kind: "revision"; revision: Omit<RevisionSpec, "at"> };

export const CAMERAS = [
  { id: "bedroom-cam", name: "Bedroom", rtsp_url: "rtsp://cams.local/bedroom", location: "Bedroom" },
  { id: "hall-cam", name: "Hallway", rtsp_url: "rtsp://cams.local/hall", location: "Hallway" },
  { id: "kitchen-cam", name: "Kitchen", rtsp_url: "rtsp://cams.local/kitchen", location: "Kitchen" },
  { id: "living-cam", name: "Living room", rtsp_url: "rtsp://cams.local/living", location: "Living Room" },
];

const h = (hours: number, minutes = 0, seconds = 0) => hours * 3600 + minutes * 60 + seconds;
const rose = (ph: string, posture = "standing") => [{ ph_id: ph, identity_id: "rose", posture }];

let n = 0;
const ev = (at_s: number, say: string, camera_id: string, people: EventSpec["people"], room_name?: string): ScriptStep => ({
  at_s,
  say,
  kind: "event",
  event: { camera_id, people, event_id: `day-ev-${++n}`, ...(room_name ? { room_name } : {}) },
});

/** 3 a.m.: back and forth between the hallway and the living room, every 20 s for 10 minutes. */
function pacing(): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let i = 0; i < 30; i++) {
    const hall = i % 2 === 0;
    steps.push(
      ev(h(3, 0, i * 20), hall ? "Rose walks into the hallway" : "Rose walks into the living room", hall ? "hall-cam" : "living-cam", rose("ph-night")),
    );
  }
  return steps;
}

export function roseDay(): ScriptStep[] {
  n = 0;
  const steps: ScriptStep[] = [
    ...pacing(),
    {
      at_s: h(3, 10),
      say: "CTS: Rose is pacing at night (warning)",
      kind: "signal",
      signal: { signal_id: "sig-pacing-night", identity_id: "rose", kind: "pacing", severity: "warning", minutes: 10, value: 30 },
    },
    {
      at_s: h(3, 10, 5),
      say: "CTS: night-time movement (warning)",
      kind: "signal",
      signal: { signal_id: "sig-night-move", identity_id: "rose", kind: "nighttime_movement", severity: "warning", minutes: 10, value: 1 },
    },
    ev(h(3, 15), "Rose goes back to bed", "bedroom-cam", rose("ph-night", "lying")),
    ev(h(7, 0), "Rose gets up", "bedroom-cam", rose("ph-morning", "sitting")),
    ev(h(7, 2), "Rose walks through the hallway", "hall-cam", rose("ph-morning")),
    // Seen from behind in the kitchen: at first the tracker takes her for Tom, then corrects itself.
    ev(h(7, 5), "Someone is in the kitchen (the tracker thinks it is Tom)", "kitchen-cam", [{ ph_id: "ph-kitchen", identity_id: "tom", probability: 0.55 }]),
    {
      at_s: h(7, 6),
      say: "CTS: the kitchen track was Rose after all",
      kind: "revision",
      revision: { revision_id: "rev-kitchen-1", ph_id: "ph-kitchen", previous_identity_id: "tom", new_identity_id: "rose" },
    },
    ev(h(7, 10), "Rose makes breakfast", "kitchen-cam", rose("ph-kitchen")),
    ev(h(7, 25), "Rose eats breakfast", "kitchen-cam", rose("ph-kitchen", "sitting")),
    ev(h(13, 0), "Rose sits down in the living room", "living-cam", rose("ph-afternoon", "sitting")),
    ev(h(15, 0), "Rose is still sitting, not moving", "living-cam", rose("ph-afternoon", "sitting")),
    {
      at_s: h(15, 0, 5),
      say: "CTS: Rose has not moved for two hours (warning)",
      kind: "signal",
      signal: { signal_id: "sig-still-pm", identity_id: "rose", kind: "stillness_anomaly", severity: "warning", minutes: 120, value: 120 },
    },
    {
      at_s: h(15, 30),
      say: "CTS: still not moving, now an emergency",
      kind: "signal",
      signal: { signal_id: "sig-still-pm", identity_id: "rose", kind: "stillness_anomaly", severity: "emergency", minutes: 150, value: 150 },
    },
  ];
  return steps.sort((a, b) => a.at_s - b.at_s);
}
