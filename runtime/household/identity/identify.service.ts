/**
 * Identification of a batch of camera frames (the person_identification step): faces found
 * and matched (built in) or asked of the identification service (remote); unknown faces
 * clustered into visitors; motion across the frames; annotated frames stored as media; and a
 * `person.sighted` event for every face identified (a person or a visitor), which the
 * tracking module turns into sightings and locations.
 */
import path from "node:path";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import type { PersonSighting } from "../../platform/core/event-bus";
import { listPersons } from "../persons/persons.service";
import { findSensor } from "../sensors/sensors.service";
import { capturedAtOf, storeFrame } from "../media/media.service";
import { readMediaPath } from "../media/media-paths";
import { annotate } from "./annotate";
import { allDescriptors, type StoredDescriptor } from "./descriptors.store";
import { isProblem } from "./engine";
import { faceEngine, remoteSettings } from "./identity.service";
import { bestMatch } from "./matching";
import { directionOf, movementMap, roomsOf, type TrackPoint } from "./motion";
import { identifyRemote } from "./remote.client";
import { VisitorBook } from "./visitors";
import type { IdentifyRequest, PersonDetection, RoomTransitionSeen } from "../../../vocabulary/identity";

// The shapes the step sees are declared once, by the care-services seam.
export type { IdentifyRequest, PersonDetection };
export type RoomTransitionOut = RoomTransitionSeen;

export interface IdentifyOutcome {
  person_detections: PersonDetection[];
  annotated_images: string[];
  room_transitions: RoomTransitionOut[];
  /** Frames that could not be read, with why. */
  skipped: string[];
  backend: string;
}

export type IdentifyAnswer = { ok: true; value: IdentifyOutcome } | { ok: false; reason: string };

interface Face {
  frame: number;
  bbox: number[];
  width: number;
  confidence: number;
  person_id: string | null;
  identity: string;
  descriptor: number[] | null;
  score: number;
}

async function readFrame(ctx: PlatformContext, relative: string): Promise<Uint8Array | null> {
  const root = path.resolve(ctx.dataDir);
  const full = path.resolve(root, relative);
  if (full !== root && !full.startsWith(root + path.sep)) return null;
  // A frame of the media store is read from it: another instance may have stored it.
  return readMediaPath(ctx, relative);
}

export async function identifyFrames(ctx: PlatformContext, req: IdentifyRequest, signal?: AbortSignal): Promise<IdentifyAnswer> {
  const threshold = req.threshold ?? ctx.settings.recognition.threshold;
  const backend = ctx.settings.recognition.backend;
  const frames: Array<{ path: string; bytes: Uint8Array }> = [];
  const skipped: string[] = [];
  for (const p of req.media_paths) {
    const bytes = await readFrame(ctx, p);
    if (bytes) frames.push({ path: p, bytes });
    else skipped.push(`${p}: not readable`);
  }
  const empty: IdentifyOutcome = { person_detections: [], annotated_images: [], room_transitions: [], skipped, backend };
  if (!frames.length) return { ok: true, value: empty };

  const persons = await listPersons(ctx);
  const nameOf = new Map(persons.map((p) => [p.person_id, p.display_name]));
  const faces: Face[] = [];
  if (backend === "remote") {
    const answer = await identifyRemote(
      remoteSettings(ctx),
      frames.map((f) => f.bytes),
      { threshold, save_guest_images: ctx.settings.recognition.save_guest_images },
      signal,
    );
    if (!answer.ok) return answer;
    const byName = new Map(persons.map((p) => [p.display_name.toLowerCase(), p.person_id]));
    answer.value.forEach((dets, frame) => {
      for (const d of dets) {
        const known = d.identity !== "unknown" && d.confidence >= threshold;
        const personId = known ? (nameOf.has(d.identity) ? d.identity : (byName.get(d.identity.toLowerCase()) ?? null)) : null;
        faces.push({
          frame,
          bbox: d.bbox,
          width: 0,
          confidence: d.confidence,
          person_id: personId,
          identity: known ? d.identity : "unknown",
          descriptor: d.embedding,
          score: 1,
        });
      }
    });
  } else {
    let results;
    try {
      results = await faceEngine(ctx).detect(frames.map((f) => f.bytes));
    } catch (err) {
      return { ok: false, reason: `the built-in face engine is unavailable: ${err instanceof Error ? err.message : String(err)}` };
    }
    const known = (await allDescriptors(ctx.db)).filter((d) => d.person_id);
    results.forEach((r, frame) => {
      if (isProblem(r)) {
        skipped.push(`${frames[frame].path}: ${r.error}`);
        return;
      }
      for (const f of r.faces) faces.push(matchFace(f, frame, r.width, known, threshold, nameOf));
    });
  }

  // Unknown faces: the same visitor id for the same face, across frames and days.
  const visitors = new VisitorBook(ctx, threshold);
  const visitorOf = new Map<Face, string>();
  for (const f of faces) {
    if (f.person_id || !f.descriptor) continue;
    const v = await visitors.assign(f.descriptor, f.score, frames[f.frame].path, req.sensor_id);
    if (v) visitorOf.set(f, v);
  }
  await visitors.countSightings(isoNow(ctx.clock), req.sensor_id);

  // Motion per identity across the batch.
  const sensor = req.sensor_id ? await findSensor(ctx, req.sensor_id) : undefined;
  const map = sensor ? movementMap(sensor.config_json) : {};
  const room = { id: sensor?.room_id != null ? String(sensor.room_id) : null, name: sensor?.room_name ?? req.room_name };
  const trackKey = (f: Face): string | null => f.person_id ?? visitorOf.get(f) ?? null;
  const tracks = new Map<string, TrackPoint[]>();
  for (const f of faces) {
    const k = trackKey(f);
    if (k) tracks.set(k, [...(tracks.get(k) ?? []), { frame: f.frame, bbox: f.bbox, width: f.width || 640 }]);
  }
  const directions = new Map<string, { raw: string; semantic: string | null }>();
  const transitions: RoomTransitionOut[] = [];
  if (req.include_motion) {
    for (const [k, points] of tracks) {
      const raw = directionOf(points);
      if (!raw) continue;
      const semantic = map[raw] ?? null;
      directions.set(k, { raw, semantic });
      if (!semantic) continue;
      const best = Math.max(...faces.filter((f) => trackKey(f) === k).map((f) => f.confidence));
      const { from, to } = roomsOf(semantic, room);
      transitions.push({
        person_id: k,
        person_name: nameOf.get(k) ?? null,
        sensor_id: req.sensor_id,
        direction_raw: raw,
        semantic,
        from_room_id: from.id,
        from_room_name: from.name,
        to_room_id: to.id,
        to_room_name: to.name,
        confidence: best,
      });
    }
  }

  const detections: PersonDetection[] = faces.map((f) => {
    const k = trackKey(f);
    const dir = k ? directions.get(k) : undefined;
    return {
      identity: f.identity,
      confidence: f.confidence,
      bbox: f.bbox,
      person_id: f.person_id,
      name: f.person_id ? (nameOf.get(f.person_id) ?? null) : null,
      visitor_id: visitorOf.get(f) ?? null,
      media_path: frames[f.frame].path,
      direction_raw: dir?.raw ?? null,
      direction_semantic: dir?.semantic ?? null,
    };
  });

  await publishSightings(ctx, detections, req);

  const annotated: string[] = [];
  if (req.include_annotated_image) {
    for (let i = 0; i < frames.length; i++) {
      const labels = detections
        .filter((d) => d.media_path === frames[i].path)
        .map((d) => ({ bbox: d.bbox, known: d.person_id !== null, text: d.name ?? (d.visitor_id ? `unknown (${d.visitor_id})` : "unknown") }));
      try {
        const bytes = await annotate(frames[i].bytes, labels);
        const stored = await storeFrame(ctx, { sensor_id: req.sensor_id ?? "identification", room_name: req.room_name, bytes, labels: ["annotated"] });
        annotated.push(stored.path);
      } catch (err) {
        skipped.push(`${frames[i].path}: not annotated (${err instanceof Error ? err.message : String(err)})`);
      }
    }
  }

  const targets = req.target_persons?.length ? new Set(req.target_persons) : null;
  return {
    ok: true,
    value: {
      person_detections: targets ? detections.filter((d) => d.person_id && targets.has(d.person_id)) : detections,
      annotated_images: annotated,
      room_transitions: targets ? transitions.filter((t) => targets.has(t.person_id)) : transitions,
      skipped,
      backend,
    },
  };
}

function matchFace(
  f: { bbox: number[]; score: number; descriptor: number[] },
  frame: number,
  width: number,
  known: readonly StoredDescriptor[],
  threshold: number,
  nameOf: ReadonlyMap<string, string>,
): Face {
  const m = bestMatch(f.descriptor, known, "person_id");
  const isKnown = m !== null && m.confidence >= threshold;
  return {
    frame,
    bbox: f.bbox,
    width,
    confidence: m?.confidence ?? 0,
    person_id: isKnown ? m.id : null,
    identity: isKnown ? (nameOf.get(m.id) ?? m.id) : "unknown",
    descriptor: f.descriptor,
    score: f.score,
  };
}

/** When each frame was taken (the media store's `captured_at`), by its path; a frame not in the store has none. */
async function takenAt(ctx: PlatformContext, paths: readonly string[]): Promise<Map<string, number>> {
  const captured = await capturedAtOf(
    ctx,
    paths.map((p) => path.basename(p)),
  );
  return new Map(paths.flatMap((p) => (captured.has(path.basename(p)) ? [[p, Date.parse(captured.get(path.basename(p))!)] as const] : [])));
}

/** The sightings of a batch, dated when their frame was taken (else now), for the location state and history. */
async function publishSightings(ctx: PlatformContext, detections: readonly PersonDetection[], req: IdentifyRequest): Promise<void> {
  if (!req.sensor_id) return;
  // One sighting per person or visitor per batch: their most confident face.
  const best = new Map<string, PersonDetection>();
  for (const d of detections) {
    const id = d.person_id ?? d.visitor_id;
    if (id && (!best.has(id) || d.confidence > (best.get(id)?.confidence ?? 0))) best.set(id, d);
  }
  const now = ctx.clock.now();
  const taken = await takenAt(ctx, [...new Set([...best.values()].flatMap((d) => (d.media_path ? [d.media_path] : [])))]).catch((err: unknown) => {
    ctx.log.warn({ err }, "identification: frame times not read; sightings dated now");
    return new Map<string, number>();
  });
  for (const [id, d] of best) {
    const at = (d.media_path && taken.get(d.media_path)) || now;
    const sighting: PersonSighting = {
      person_id: id,
      person_name: d.name,
      visitor: d.person_id === null,
      sensor_id: req.sensor_id,
      room_name: req.room_name,
      confidence: d.confidence,
      bbox: d.bbox,
      at,
      media_path: d.media_path,
      direction_raw: d.direction_raw,
      direction_semantic: d.direction_semantic,
    };
    ctx.bus.publish("person.sighted", sighting);
  }
}
