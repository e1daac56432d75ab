/** The members: where they are, who is enrolled, camera sightings, activities, conversations. */
import { z } from "zod";
import { listMemberLocations, memberSightings } from "../../../../household/tracking/location-views";
import { listEnrollments } from "../../../../household/identity/identity.service";
import { listActivities } from "../../../../household/activities/activities.service";
import { getPerson } from "../../../../household/persons/persons.service";
import { defineTool, type ToolDef } from "../tool";
import { recentTurns } from "../../../../household/voice-turns/voice-turns.store";

const enc = encodeURIComponent;
const personId = z.string().min(1).max(64).describe("the member's id, e.g. grandma_rose");

const location = z.object({
  person_id: z.string(),
  display_name: z.string(),
  room_id: z.string().nullable(),
  room_name: z.string().nullable(),
  since: z.string().nullable(),
  source: z.string().nullable(),
  confidence: z.number().nullable(),
  staleness_seconds: z.number().nullable().describe("seconds since the location was last confirmed; null when never placed"),
  stale: z.boolean(),
  quality: z.number().nullable(),
});
const sighting = z.object({
  person_id: z.string(),
  person_name: z.string().nullable(),
  visitor: z.boolean(),
  sensor_id: z.string(),
  room_name: z.string().nullable(),
  confidence: z.number(),
  bbox: z.array(z.number()),
  media_path: z.string().nullable(),
  direction_raw: z.string().nullable(),
  direction_semantic: z.string().nullable(),
  timestamp: z.string(),
});
const activity = z.object({
  id: z.number(),
  timestamp: z.string(),
  activity_type: z.string(),
  person_id: z.string().nullable(),
  room_name: z.string().nullable(),
  confidence: z.number(),
  metadata_json: z.record(z.string(), z.unknown()),
  rule_id: z.number().nullable(),
  execution_id: z.number().nullable(),
});

export const PERSONS_TOOLS: readonly ToolDef[] = [
  defineTool({
    name: "get_person_locations",
    title: "Where everyone is",
    description: "The current room of every tracked household member, with since when, the source, confidence and staleness.",
    input: z.object({}),
    output: z.array(location),
    twin: () => "GET /api/v1/persons/locations",
    run: async ({ ctx }) => {
      const now = ctx.clock.now();
      return (await listMemberLocations(ctx)).map((l) => ({
        person_id: l.person_id,
        display_name: l.display_name,
        room_id: l.room_id,
        room_name: l.room_name,
        since: l.since,
        source: l.source,
        confidence: l.confidence,
        staleness_seconds: l.updated_at ? Math.max(0, Math.round((now - Date.parse(l.updated_at)) / 1000)) : null,
        stale: l.stale,
        quality: l.quality,
      }));
    },
  }),
  defineTool({
    name: "get_enrolled_persons",
    title: "Enrolled members",
    description: "The members whose faces are enrolled for recognition, with how many face samples each has.",
    input: z.object({}),
    output: z.array(z.object({ person_id: z.string(), display_name: z.string(), embedding_count: z.number(), enrolled_at: z.string().nullable() })),
    twin: () => "GET /api/v1/persons/enrolled",
    run: async ({ ctx }) => listEnrollments(ctx),
  }),
  defineTool({
    name: "get_person_sightings",
    title: "Camera sightings",
    description: "A member's newest camera sightings (which camera, room, confidence, direction), newest first.",
    input: z.object({ person_id: personId, limit: z.number().int().min(1).max(200).default(10) }),
    output: z.array(sighting),
    twin: (a) => `GET /api/v1/persons/${enc(a.person_id)}/sightings`,
    run: async ({ ctx }, a) => memberSightings(ctx, a.person_id, a.limit),
  }),
  defineTool({
    name: "get_person_activities",
    title: "Recent activities",
    description: "A member's activities (eating, medication, sleeping, ...) of the last minutes, newest first.",
    input: z.object({
      person_id: personId,
      activity_type: z.string().min(1).max(100).optional(),
      minutes: z
        .number()
        .int()
        .min(1)
        .max(7 * 24 * 60)
        .default(60),
    }),
    output: z.array(activity),
    twin: () => "GET /api/v1/activities",
    run: async ({ ctx }, a) => {
      await getPerson(ctx, a.person_id);
      const since = new Date(ctx.clock.now() - a.minutes * 60_000).toISOString();
      return listActivities(ctx, { person_id: a.person_id, ...(a.activity_type ? { activity_type: a.activity_type } : {}), since, limit: 200, offset: 0 });
    },
  }),
  defineTool({
    name: "get_conversation_history",
    title: "Conversation history",
    description:
      "Recent turns of conversations with the voice companion, oldest first: what the senior said (as transcribed) and what the companion said. One conversation with session_id, else all.",
    input: z.object({ session_id: z.string().min(1).max(64).optional(), limit: z.number().int().min(1).max(200).default(20) }),
    output: z.array(
      z.object({
        session_id: z.string(),
        role: z.enum(["user", "assistant"]),
        content: z.string(),
        timestamp: z.string(),
        reason: z.string().describe("what started the conversation: notification, prompt, senior (the Talk button) or api"),
        execution_id: z.number().nullable(),
        step_id: z.number().nullable(),
      }),
    ),
    twin: () => "GET /api/v1/voice/turns",
    run: async ({ ctx }, a) =>
      (await recentTurns(ctx.db, { ...(a.session_id ? { session_id: a.session_id } : {}), limit: a.limit })).map((t) => ({
        session_id: t.session_id,
        role: t.role,
        content: t.text,
        timestamp: t.at,
        reason: t.reason,
        execution_id: t.execution_id,
        step_id: t.step_id,
      })),
  }),
];
