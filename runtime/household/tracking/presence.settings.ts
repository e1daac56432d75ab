/** The `person_tracking` and `presence` settings sections: the presence provider chain (docs/presence.md). */
import { z } from "zod";

// {person_id} in an entity id is replaced by the person's id.
const entityId = z.string().regex(/^[a-z_]+\.[a-z0-9_{}]+$/, "an entity id like binary_sensor.{person_id}_bed");
const providerCommon = {
  priority: z.number().int().min(0).max(1000),
  /** Evidence older than this is no candidate; null: no limit (cts_location: person_tracking.stale_timeout_minutes). */
  ttl_seconds: z.number().positive().nullable().default(null),
  enabled: z.boolean().default(true),
};
const confidence = (d: number) => z.number().min(0).max(1).default(d);
const presenceProvider = z.discriminatedUnion("name", [
  z
    .object({
      name: z.literal("night_anchor"),
      ...providerCommon,
      options: z
        .object({
          bed_entity: entityId.default("binary_sensor.{person_id}_bed_occupancy"),
          light_entities: z.array(entityId).default(["light.bedroom"]),
          anchor_rooms: z.array(z.string().min(1)).min(1).default(["bedroom"]),
          room_name: z.string().min(1).default("bedroom"),
          release_minutes: z.number().min(0).default(5),
          confidence: confidence(0.95),
        })
        .strict()
        .prefault({}),
    })
    .strict(),
  z
    .object({
      name: z.literal("hub_bed_sensor"),
      ...providerCommon,
      options: z
        .object({
          bed_entity: entityId.default("binary_sensor.{person_id}_bed_occupancy"),
          room_name: z.string().min(1).default("bedroom"),
          confidence: confidence(0.8),
        })
        .strict()
        .prefault({}),
    })
    .strict(),
  z.object({ name: z.literal("cts_location"), ...providerCommon, options: z.object({}).strict().prefault({}) }).strict(),
  z
    .object({
      name: z.literal("hub_device_tracker"),
      ...providerCommon,
      options: z
        .object({
          entity: entityId.default("device_tracker.{person_id}_phone"),
          home_states: z.array(z.string().min(1)).min(1).default(["home"]),
          confidence: confidence(0.6),
        })
        .strict()
        .prefault({}),
    })
    .strict(),
  z
    .object({
      name: z.literal("stale_fallback"),
      ...providerCommon,
      options: z
        .object({ confidence: confidence(0.5) })
        .strict()
        .prefault({}),
    })
    .strict(),
]);
const DEFAULT_PRESENCE_PROVIDERS = [
  { name: "night_anchor", priority: 90 },
  { name: "hub_bed_sensor", priority: 70 },
  { name: "cts_location", priority: 50 },
  { name: "hub_device_tracker", priority: 30 },
  { name: "stale_fallback", priority: 10, ttl_seconds: 3600 },
].map((p) => presenceProvider.parse(p));

export const personTrackingSettings = z
  .object({
    enabled: z.boolean().default(true),
    stale_timeout_minutes: z.number().positive().default(30),
  })
  .strict()
  .prefault({});

// The presence provider chain (presence_query, home_state): reloadable without a restart
// (POST /api/v1/cts/presence-config/reload). docs/presence.md describes each provider.
export const presenceSettings = z
  .object({
    /** Candidates under this confidence are dropped before the chain picks one. */
    min_confidence: z.number().min(0).max(1).default(0.4),
    providers: z
      .array(presenceProvider)
      .default(DEFAULT_PRESENCE_PROVIDERS)
      .refine((list) => new Set(list.map((p) => p.name)).size === list.length, { message: "a provider is listed twice" }),
  })
  .strict()
  .prefault({});
