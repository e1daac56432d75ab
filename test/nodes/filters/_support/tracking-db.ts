/**
 * A fresh, migrated store (SQLite, or PostgreSQL with CAREFLOW_TEST_DATABASE_URL) for the
 * filter and step handler tests that read tracking data, with a manual clock, a chosen
 * household time zone, and seeders that write rows the way the tracking services will.
 */
import assert from "node:assert/strict";
import type { Knex } from "knex";
import type { z } from "zod";
import { checkConfig } from "../../../../nodes/_kit/config";
import type { HandlerContext } from "../../../../nodes/_kit/handler-types";
import type { NodeSpec } from "../../../../nodes/_kit/types";
import { careServices } from "../../../../runtime/care/services/care-services";
import type { AppContext } from "../../../../runtime/app/context";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { openStore } from "../../../../runtime/platform/db/store";
import { migratedDatabase } from "../../../support/test-db";
import { handlerContext } from "../../handler-context";

export const MIN = 60_000;
export const iso = (ms: number): string => new Date(ms).toISOString();

const TABLES = ["person_locations", "person_location_history", "room_transitions", "room_trends", "dementia_signals", "person_activities", "persons"];

export interface ContextOptions {
  clock?: ManualClock;
  timezone?: string;
  staleTimeoutMinutes?: number;
}

export interface TrackingDb {
  db: Knex;
  /** A handler context on this store; the clock defaults to 2026-11-22T10:00:00Z. */
  ctx(opts?: ContextOptions): HandlerContext & { clock: ManualClock };
  seed: ReturnType<typeof seeders>;
}

/** Registers the hooks of a describe block: one database for the block, emptied before each test. */
export function useTrackingDb(): TrackingDb {
  const state = {} as TrackingDb;
  let close: () => Promise<void> = async () => undefined;
  before(async function () {
    this.timeout(30_000);
    const fresh = await migratedDatabase();
    const store = await openStore(fresh.databaseUrl, fresh.dataDir);
    const settings = buildSettings({});
    const log = createLogger("silent");
    state.db = store.db;
    state.seed = seeders(store.db);
    state.ctx = (opts = {}) => {
      const clock = opts.clock ?? new ManualClock(Date.parse("2026-11-22T10:00:00Z"));
      // The real care services over this store: they read only the store, the clock and the settings.
      const app: Partial<AppContext> = {
        db: store.db,
        dialect: store.dialect,
        clock,
        log,
        settings: {
          ...settings,
          app: { ...settings.app, timezone: opts.timezone ?? "UTC" },
          person_tracking: { ...settings.person_tracking, stale_timeout_minutes: opts.staleTimeoutMinutes ?? 30 },
        },
      };
      return { clock, log, services: careServices(app as AppContext), signal: new AbortController().signal };
    };
    close = async () => {
      await store.close();
      await fresh.drop();
    };
  });
  beforeEach(async () => {
    for (const table of TABLES) await state.db(table).delete();
  });
  after(async () => close());
  return state;
}

/** The spec's config as the handler receives it: validated, with defaults. */
export function configOf<S extends NodeSpec>(spec: S, raw: Record<string, unknown>): z.output<S["config"]> {
  const check = checkConfig(spec, raw);
  assert.ok(check.ok, JSON.stringify(check));
  return check.config as z.output<S["config"]>;
}

function seeders(db: Knex) {
  return {
    location: (person_id: string, room_name: string | null, atMs: number, o: { room_id?: string | null; source?: string; confidence?: number } = {}) =>
      db("person_locations").insert({
        person_id,
        room_id: o.room_id === undefined ? (room_name ? room_name.toLowerCase() : null) : o.room_id,
        room_name,
        source: o.source ?? "camera",
        confidence: o.confidence ?? 0.9,
        updated_at: iso(atMs),
      }),
    history: (person_id: string, room_name: string | null, atMs: number, direction_semantic: string | null = null) =>
      db("person_location_history").insert({
        person_id,
        room_id: room_name ? room_name.toLowerCase() : null,
        room_name,
        source: "camera",
        confidence: 0.9,
        direction_semantic,
        timestamp: iso(atMs),
      }),
    transition: (t: { person_id: string; semantic: string | null; from_room_name?: string | null; to_room_name?: string | null; atMs: number }) =>
      db("room_transitions").insert({
        person_id: t.person_id,
        person_name: null,
        sensor_id: "hall_cam",
        direction_raw: "left-to-right",
        semantic: t.semantic,
        from_room_name: t.from_room_name ?? null,
        to_room_name: t.to_room_name ?? null,
        confidence: 0.8,
        timestamp: iso(t.atMs),
      }),
    trend: (room_id: string, room_name: string | null, overall_severity: string, atMs: number) =>
      db("room_trends").insert({ room_id, room_name, overall_severity, clutter_score: 0.4, trend_direction: "rising", updated_at: iso(atMs) }),
    signal: (s: { signal_id: string; person_id: string; kind: string; severity: string; createdMs: number; acknowledgedMs?: number; details?: object }) =>
      db("dementia_signals").insert({
        signal_id: s.signal_id,
        person_id: s.person_id,
        kind: s.kind,
        severity: s.severity,
        details_json: JSON.stringify(s.details ?? {}),
        started_at: iso(s.createdMs - 5 * MIN),
        acknowledged_at: s.acknowledgedMs === undefined ? null : iso(s.acknowledgedMs),
        created_at: iso(s.createdMs),
      }),
    activity: (a: { activity_type: string; person_id: string | null; room_name?: string | null; atMs: number; confidence?: number }) =>
      db("person_activities").insert({
        timestamp: iso(a.atMs),
        activity_type: a.activity_type,
        person_id: a.person_id,
        room_name: a.room_name ?? null,
        confidence: a.confidence ?? 0.8,
        metadata_json: "{}",
      }),
    person: (person_id: string, cts_alert_config: object | null = null) =>
      db("persons").insert({
        person_id,
        display_name: person_id,
        cts_alert_config: cts_alert_config ? JSON.stringify(cts_alert_config) : null,
        created_at: iso(0),
        updated_at: iso(0),
      }),
  };
}

/** A context without a store, for filters that read only the trigger and the clock. */
export function clockCtx(atIso: string, timezone = "UTC"): HandlerContext & { clock: ManualClock } {
  return handlerContext({}, new ManualClock(Date.parse(atIso)), { timezone });
}
