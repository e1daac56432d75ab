import type { z } from "zod";
import type { MemoryObject, MemoryObservation } from "../../../vocabulary/memory";
import type { StepHandler, StepResult } from "../../_kit/handler-types";
import type { spec } from "./semantic_memory_query.node";

type Config = z.output<typeof spec.config>;

export const NO_MEMORY = "No memory context available.";

const emptyContext = () => ({ recent_objects: [], recent_hazards: [], observations: [], observations_count: 0, summary: NO_MEMORY });

const empty = (k: string, why: string): StepResult => ({ data: { [k]: emptyContext() }, warning: `memory context empty: ${why}` });

/** Items below min_confidence go; an item that carries no confidence stays. */
const confident = (min: number) => (x: { confidence?: number }) => x.confidence === undefined || x.confidence >= min;

/**
 * Reads what semantic memory saw in a room within the last within_minutes: recent objects,
 * observations, and the hazards among them, each list cut to its limit, with a one-line
 * summary. With the service disabled or unreachable the lists are empty, the summary is the
 * spec's `No memory context available.`, the step succeeds and its warning says why.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const k = config.output_key;
  const room = config.room_id?.trim() || (config.use_trigger_room ? input.trigger.room_name : null) || null;
  const { memory } = ctx.services;
  const found = await memory.searchObservations(
    { room_id: room, since_minutes: config.within_minutes, limit: config.observations_limit, min_confidence: config.min_confidence },
    ctx.signal,
  );
  if (!found.ok) return empty(k, found.reason);
  let objects: MemoryObject[] = [];
  if (room && config.objects_limit > 0) {
    const recent = await memory.recentObjects(room, config.within_minutes, ctx.signal);
    if (!recent.ok) return empty(k, recent.reason);
    objects = recent.value
      .filter(confident(config.min_confidence))
      .sort((a, b) => (b.last_seen_at ?? "").localeCompare(a.last_seen_at ?? ""))
      .slice(0, config.objects_limit);
  }
  const observations = found.value.filter(confident(config.min_confidence)).slice(0, config.observations_limit);
  const hazards = observations
    .filter((o) => o.hazard_flags.length)
    .slice(0, config.hazards_limit)
    .map((o) => ({ id: o.id, room_id: o.room_id, observed_at: o.observed_at, hazard_flags: o.hazard_flags, description: o.description }));
  const context = {
    recent_objects: objects,
    recent_hazards: hazards,
    observations,
    observations_count: observations.length,
    summary: summary(room, config.within_minutes, objects, observations, hazards),
  };
  return { data: { [k]: context } };
};

function summary(
  room: string | null,
  minutes: number,
  objects: readonly MemoryObject[],
  observations: readonly MemoryObservation[],
  hazards: ReadonlyArray<{ hazard_flags: string[] }>,
): string {
  if (!objects.length && !observations.length) return NO_MEMORY;
  const parts = [`In the past ${minutes} min${room ? ` in ${room}` : ""}:`];
  if (objects.length) parts.push(objects.map((o) => `${o.label} (${o.observation_count}x)`).join(", ") + ".");
  else parts.push(`${observations.length} observation(s).`);
  const names = [...new Set(hazards.flatMap((h) => h.hazard_flags))].sort();
  if (names.length) parts.push(`${names.length} hazard(s): ${names.join(", ")}.`);
  return parts.join(" ");
}
