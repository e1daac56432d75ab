/**
 * Where media bytes live, by object name (a path relative to the data dir, with forward
 * slashes: `media/ab/cd/<sha256>.jpg`, `media/speech/<sha256>.mp3`, `eink/images/<sha256>.png`).
 * One instance (the default) keeps them as files in its store's folder of the data dir (the data
 * dir itself for the store that owns it, `stores/<id>/` for another: media-root.ts); with
 * `cluster.enabled` they are rows of `media_objects` in the shared PostgreSQL, so every
 * instance reads what any stored (docs/decisions.md, "Shared media in PostgreSQL"). With
 * `media.store_url` they are objects of an S3-compatible store (s3-objects.ts), whichever of
 * the two, and the links to them are the store's presigned URLs.
 *
 * Names are content-addressed: a name's bytes never change, so a put of a name already
 * stored only marks it as written now (what a sweep's grace counts from).
 */
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import { fsObjects } from "./fs-objects";
import { mediaRoot } from "./media-root";
import type { MediaObjectStore } from "./object-store";
import { pgObjects } from "./pg-objects";
import { s3Objects, type S3Store, type S3StoreSettings } from "./s3-objects";

/** What choosing the store needs: the database, the data dir, whether the cluster is on and the S3 store's URL. */
export interface MediaObjectsContext extends Pick<PlatformContext, "db" | "dataDir"> {
  settings: { cluster: Pick<PlatformContext["settings"]["cluster"], "enabled">; media?: S3StoreSettings };
}

const borrowed = new WeakMap<Knex, MediaObjectStore>();

/** A scratch database (a rehearsal's) uses the live media store: its own has no media table worth reading. */
export const borrowMediaObjects = (scratch: Knex, live: MediaObjectsContext): void => void borrowed.set(scratch, mediaObjects(live));

/**
 * The store this instance uses: the S3-compatible one with `media.store_url`, else the shared
 * table with `cluster.enabled`, else the files of its store's folder.
 */
export const mediaObjects = (ctx: MediaObjectsContext): MediaObjectStore =>
  borrowed.get(ctx.db) ?? s3Store(ctx) ?? (ctx.settings.cluster.enabled ? pgObjects(ctx.db) : rootedFiles(ctx.db, ctx.dataDir));

const s3Store = (ctx: MediaObjectsContext): S3Store | null => (ctx.settings.media?.store_url ? s3Objects(ctx.db, ctx.settings.media) : null);

/**
 * The S3 store's presigned GET of an object (the link a speaker, a chat server or the tablet
 * fetches), or null when media is not kept in one: the caller signs its own URL then.
 */
export async function presignedUrl(ctx: MediaObjectsContext, name: string, ttlSeconds: number): Promise<string | null> {
  const live = borrowed.get(ctx.db);
  const store = live && "presign" in live ? (live as S3Store) : live ? null : s3Store(ctx);
  return store ? store.presign(name, ttlSeconds) : null;
}

/**
 * Objects last put at or before this (epoch ms) may be another store's (they were in the data
 * dir's folder when this store claimed it): a sweep deletes them only when its own expired rows
 * named them. A scratch database never sweeps: nothing is its own.
 */
export async function foreignUpTo(ctx: MediaObjectsContext): Promise<number> {
  if (borrowed.has(ctx.db)) return Number.POSITIVE_INFINITY;
  // The bucket's folder of this store (s3-objects.ts) holds only what it put.
  return ctx.settings.cluster.enabled || ctx.settings.media?.store_url ? 0 : (await mediaRoot(ctx.db, ctx.dataDir)).foreign_up_to_ms;
}

function rootedFiles(db: Knex, dataDir: string): MediaObjectStore {
  const files = async () => fsObjects((await mediaRoot(db, dataDir)).dir);
  return {
    put: async (name, bytes, nowMs) => (await files()).put(name, bytes, nowMs),
    get: async (name) => (await files()).get(name),
    stat: async (name) => (await files()).stat(name),
    list: async (prefix) => (await files()).list(prefix),
    delete: async (name, unlessPutAfter) => (await files()).delete(name, unlessPutAfter),
  };
}
