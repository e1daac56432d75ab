/**
 * Which folder of the data dir holds this store's media files (docs/decisions.md, "Issue 42
 * item 4"). One data dir may be started on two stores (the README's PostgreSQL section, tried
 * on a SQLite household's data dir): each store's sweep must only ever see its own files.
 *
 * Each store has an id (kv `media:store-id`, made once). `media/.store-id` names the store
 * that owns the data dir's own layout (`media/`, `eink/`, at their names as always); any other
 * store keeps its objects under `stores/<its id>/`, at the same names. A data dir from before
 * the marker is claimed by the first store that can be its owner: the folder is empty, or the
 * store is the data dir's own SQLite file, or a row or keeper of the store names one of its
 * frames. The objects already there when it is claimed may be another store's: the sweep
 * deletes those only when the owner's own expired rows named them (`foreign_up_to_ms`).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { Knex } from "knex";
import { isoAt } from "../../platform/core/clock";
import { kvSetIfAbsent } from "../../platform/db/kv";
import { fsObjects } from "./fs-objects";
import { keptByOthers } from "./media-keepers";
import { referencedAmong } from "./media.store";

export const STORE_ID_KEY = "media:store-id";
/** The marker, in the data dir's media folder. */
export const MARKER = ".store-id";
/** Where a store that does not own the data dir keeps its objects: `stores/<id>/`. */
export const STORES_DIR = "stores";
const FRAME = /^media\/[0-9a-f]{2}\/[0-9a-f]{2}\/([0-9a-f]{64}\.[a-z]+)$/;

export interface MediaRoot {
  /** The folder object names are under: the data dir itself, or `stores/<id>` in it. */
  dir: string;
  store_id: string;
  /** Objects last put at or before this (epoch ms) were there when the store claimed the folder. */
  foreign_up_to_ms: number;
  /** The store that owns the data dir's layout, when it is another one (or none yet). */
  guest_of: string | null;
}

interface Marker {
  store_id: string;
  foreign_up_to_ms: number;
}

const roots = new WeakMap<Knex, Map<string, Promise<MediaRoot>>>();

/** This store's media folder in `dataDir`, decided once per process and store. */
export function mediaRoot(db: Knex, dataDir: string): Promise<MediaRoot> {
  let byDir = roots.get(db);
  if (!byDir) roots.set(db, (byDir = new Map()));
  let root = byDir.get(dataDir);
  if (!root) {
    root = decide(db, dataDir);
    root.catch(() => byDir.delete(dataDir));
    byDir.set(dataDir, root);
  }
  return root;
}

async function decide(db: Knex, dataDir: string): Promise<MediaRoot> {
  const id = await kvSetIfAbsent(db, STORE_ID_KEY, randomBytes(8).toString("hex"), isoAt(Date.now()));
  const own = path.join(dataDir, STORES_DIR, id);
  const markerFile = path.join(dataDir, "media", MARKER);
  for (;;) {
    const marker = await readMarker(markerFile);
    if (marker?.store_id === id) return { dir: dataDir, store_id: id, foreign_up_to_ms: marker.foreign_up_to_ms, guest_of: null };
    // A store that once kept to its own folder keeps to it, whatever the data dir's layout holds since.
    if (marker || (await isDir(own))) return guest(own, id, marker?.store_id ?? null);
    const objects = [...(await fsObjects(dataDir).list("media/")), ...(await fsObjects(dataDir).list("eink/"))];
    if (
      objects.length > 0 &&
      !ownSqliteFile(db, dataDir) &&
      !(await namesAny(
        db,
        objects.map((o) => o.name),
      ))
    )
      return guest(own, id, null);
    const claim: Marker = { store_id: id, foreign_up_to_ms: Math.max(0, ...objects.map((o) => o.modified_ms)) };
    await fs.mkdir(path.dirname(markerFile), { recursive: true });
    if (await placeMarker(markerFile, claim)) return { dir: dataDir, store_id: id, foreign_up_to_ms: claim.foreign_up_to_ms, guest_of: null };
  }
}

/**
 * Two stores starting at once on one data dir: the first marker placed wins, the other reads it.
 * Written whole under a name of its own, then linked into place (atomic, and refused when the
 * marker exists): a marker created and then written could be read empty by the other store.
 */
async function placeMarker(markerFile: string, claim: Marker): Promise<boolean> {
  const draft = `${markerFile}.${claim.store_id}.${process.pid}`;
  await fs.writeFile(draft, JSON.stringify(claim));
  try {
    await fs.link(draft, markerFile);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    await fs.rm(draft, { force: true });
  }
}

async function guest(own: string, id: string, owner: string | null): Promise<MediaRoot> {
  await fs.mkdir(own, { recursive: true });
  return { dir: own, store_id: id, foreign_up_to_ms: 0, guest_of: owner };
}

async function readMarker(file: string): Promise<Marker | null> {
  const text = await fs.readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return null;
    throw err;
  });
  if (text === null) return null;
  let parsed: Partial<Marker> | null = null;
  try {
    parsed = JSON.parse(text) as Partial<Marker>;
  } catch {
    // reported below
  }
  if (typeof parsed?.store_id !== "string") throw new Error(`${file}: names no store; remove it only if one store ever used this data dir`);
  return { store_id: parsed.store_id, foreign_up_to_ms: Number(parsed.foreign_up_to_ms) || 0 };
}

const isDir = (dir: string): Promise<boolean> =>
  fs.stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** The data dir's default SQLite file (`careflow.db`): that store is the data dir's own by construction. */
function ownSqliteFile(db: Knex, dataDir: string): boolean {
  const connection = db.client.config.connection as { filename?: unknown } | undefined;
  return typeof connection?.filename === "string" && path.resolve(connection.filename) === path.resolve(dataDir, "careflow.db");
}

/** Whether a frame row or a keeper of this store names one of these objects (asked in chunks). */
async function namesAny(db: Knex, names: readonly string[]): Promise<boolean> {
  const frames = names.flatMap((n) => FRAME.exec(n)?.[1] ?? []);
  for (let i = 0; i < frames.length; i += 500) {
    const chunk = frames.slice(i, i + 500);
    if ((await referencedAmong(db, chunk)).size > 0 || (await keptByOthers(db, chunk)).size > 0) return true;
  }
  return false;
}
