/**
 * Frames as a person tracing a run looks at them (the run detail, the editor's runs view):
 * for each media path that names an object of the store, the frame's id (its object name), a
 * signed URL and what its row says (camera, room, time, labels). A frame the retention sweep
 * has deleted is still listed, without a URL and with a note, so the trace shows that there
 * was one. Paths outside the store (files put there by hand) are left out: nothing can sign
 * them, and the run keeps their text in `trigger_context.media_paths` and the step's trace.
 */
import path from "node:path";
import { mediaRowsByObjects, type MediaRow } from "./media.store";
import { isObjectName, mediaFilePath, objectPath, signedUrl, type MediaContext } from "./media.service";

export interface FrameView {
  /** The frame's id: `<sha256>.<ext>`. */
  object_name: string;
  /** Signed and expiring (docs/media.md); null once the frame is no longer kept. */
  url: string | null;
  sensor_id: string | null;
  room_name: string | null;
  captured_at: string | null;
  labels: string[];
  /** Why there is no URL. */
  note?: string;
}

/** Which row speaks for an object several rows store: the camera's own, captured by `at`, newest. */
export interface FrameHint {
  sensor_id?: string | null;
  /** ISO-8601: a row captured after this (the same bytes stored again later) is a poorer match. */
  at?: string | null;
}

/** The object a media path names, when it is the store's own path for it; else null. */
export function objectNameOf(dataDir: string, mediaPath: string): string | null {
  const name = path.basename(mediaPath);
  if (!isObjectName(name)) return null;
  const rel = path.relative(dataDir, mediaFilePath(dataDir, mediaPath)).split(path.sep).join("/");
  return rel === objectPath(name) ? name : null;
}

/**
 * The store's objects among each list of media paths, once each in the order given, as
 * FrameViews: several lists at once (a run's trigger and each of its steps), with one query
 * for all their objects and each list's own hint. The answer is in the order of `lists`.
 */
export async function frameViewLists(ctx: MediaContext, lists: ReadonlyArray<{ paths: readonly string[]; hint?: FrameHint }>): Promise<FrameView[][]> {
  const perList = lists.map((l) => [...new Set(l.paths.map((p) => objectNameOf(ctx.dataDir, p)).filter((n): n is string => n !== null))]);
  const rows = await mediaRowsByObjects(ctx.db, [...new Set(perList.flat())]);
  return Promise.all(perList.map((names, i) => Promise.all(names.map((name) => view(ctx, name, pick(rows, name, lists[i].hint ?? {}))))));
}

function pick(rows: readonly MediaRow[], name: string, hint: FrameHint): MediaRow | undefined {
  const score = (r: MediaRow): [number, number, string, number] => [
    hint.sensor_id && r.sensor_id === hint.sensor_id ? 1 : 0,
    !hint.at || r.captured_at <= hint.at ? 1 : 0,
    r.captured_at,
    r.id,
  ];
  let best: MediaRow | undefined;
  for (const r of rows) {
    if (r.object_name !== name) continue;
    if (!best || compare(score(r), score(best)) > 0) best = r;
  }
  return best;
}

function compare(a: readonly (number | string)[], b: readonly (number | string)[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i] ? 1 : -1;
  return 0;
}

async function view(ctx: MediaContext, name: string, row: MediaRow | undefined): Promise<FrameView> {
  if (!row) {
    const hours = ctx.settings.aggregator.media_retention_hours;
    return {
      object_name: name,
      url: null,
      sensor_id: null,
      room_name: null,
      captured_at: null,
      labels: [],
      note: `no longer kept: frames are deleted ${hours} h after capture (aggregator.media_retention_hours)`,
    };
  }
  return {
    object_name: name,
    url: await signedUrl(ctx, name),
    sensor_id: row.sensor_id,
    room_name: row.room_name,
    captured_at: row.captured_at,
    labels: row.labels,
  };
}
