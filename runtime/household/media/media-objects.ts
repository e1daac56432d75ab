/**
 * Where media bytes live, by object name (a path relative to the data dir, with forward
 * slashes: `media/ab/cd/<sha256>.jpg`, `media/speech/<sha256>.mp3`, `eink/images/<sha256>.png`).
 * One instance (the default) keeps them as files in its data dir, exactly as before; with
 * `cluster.enabled` they are rows of `media_objects` in the shared PostgreSQL, so every
 * instance reads what any stored (docs/decisions.md, "Shared media in PostgreSQL").
 *
 * Names are content-addressed: a name's bytes never change, so a put of a name already
 * stored only marks it as written now (what a sweep's grace counts from).
 */
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import { fsObjects } from "./fs-objects";
import type { MediaObjectStore } from "./object-store";
import { pgObjects } from "./pg-objects";

/** What choosing the store needs: the database, the data dir and whether the cluster is on. */
export interface MediaObjectsContext extends Pick<PlatformContext, "db" | "dataDir"> {
  settings: { cluster: Pick<PlatformContext["settings"]["cluster"], "enabled"> };
}

const borrowed = new WeakMap<Knex, MediaObjectStore>();

/** A scratch database (a rehearsal's) uses the live media store: its own has no media table worth reading. */
export const borrowMediaObjects = (scratch: Knex, live: MediaObjectsContext): void => void borrowed.set(scratch, mediaObjects(live));

/** The store this instance uses: the shared one with `cluster.enabled`, else the data dir's files. */
export const mediaObjects = (ctx: MediaObjectsContext): MediaObjectStore =>
  borrowed.get(ctx.db) ?? (ctx.settings.cluster.enabled ? pgObjects(ctx.db) : fsObjects(ctx.dataDir));
