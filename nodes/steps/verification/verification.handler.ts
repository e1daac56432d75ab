import type { z } from "zod";
import type { CareServices } from "../../_kit/care-services";
import type { StepHandler } from "../../_kit/handler-types";
import { blankToNull, isoAt } from "../../_kit/values";
import type { spec } from "./verification.node";

type Config = z.output<typeof spec.config>;
type Condition = Config["conditions"][number];

/** One condition as checked: what was looked for (templates rendered), where in time, and what was found. */
interface ConditionOutcome {
  activity_type: string;
  person_id: string | null;
  room_name: string | null;
  completed: boolean;
  min_confidence: number;
  window_from: string;
  window_to: string;
  records_found: number;
  last_seen_at: string | null;
  matched: boolean;
}

/**
 * Looks up each condition in the activity log and records whether they match per
 * match_mode. No conditions verify nothing: the result is false, so a half-built rule
 * reminds rather than stays silent.
 *
 * With re_notify_if_failed, a failed verification also returns `wait_until` (now +
 * re_notify_delay_minutes) and `verification.re_notify_at`: the engine parks the run like a
 * wait step and resumes with the steps after this one, which send the reminder. The result
 * is not re-checked on resume; a flow that wants that places a second verification after.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const now = ctx.clock.now();
  const outcomes: ConditionOutcome[] = [];
  for (const c of config.conditions) outcomes.push(await check(ctx.services, c, input.pipeline_data, now));
  const matched = outcomes.filter((o) => o.matched);
  const unmatched = outcomes.filter((o) => !o.matched);
  const verified = outcomes.length > 0 && (config.match_mode === "all" ? unmatched.length === 0 : matched.length > 0);
  const renotify = !verified && config.re_notify_if_failed;
  const renotifyAt = now + config.re_notify_delay_minutes * 60_000;
  const verification = {
    verified,
    match_mode: config.match_mode,
    matched_conditions: matched,
    unmatched_conditions: unmatched,
    re_notify_at: renotify ? isoAt(renotifyAt) : null,
  };
  return renotify && config.re_notify_delay_minutes > 0 ? { data: { verification }, wait_until: renotifyAt } : { data: { verification } };
};

async function check(services: CareServices, c: Condition, data: Record<string, unknown>, now: number): Promise<ConditionOutcome> {
  const { activities, names, templates } = services;
  const person = blankToNull(c.person_id === undefined ? undefined : templates.render(c.person_id, data));
  const room = blankToNull(c.room_name === undefined ? undefined : templates.render(c.room_name, data));
  const { from, to } = window(services, c, now);
  const records = from > to ? [] : await activities.between({ since: isoAt(from), until: isoAt(to), person_id: person });
  const found = records.filter(
    (r) => names.same(r.activity_type, c.activity_type) && (room === null || names.same(r.room_name, room)) && r.confidence >= c.min_confidence,
  );
  return {
    activity_type: c.activity_type,
    person_id: person,
    room_name: room,
    completed: c.completed,
    min_confidence: c.min_confidence,
    window_from: isoAt(from),
    window_to: isoAt(to),
    records_found: found.length,
    last_seen_at: found[0]?.timestamp ?? null,
    matched: c.completed ? found.length > 0 : found.length === 0,
  };
}

/**
 * The span a condition looks at: the last within_minutes, the daily window, both (their
 * overlap), or neither: today since local midnight, so "did she eat" means today, not ever.
 */
function window({ time }: CareServices, c: Condition, now: number): { from: number; to: number } {
  let from = c.within_minutes !== undefined ? now - c.within_minutes * 60_000 : null;
  let to = now;
  const start = c.window_start ? time.timeOfDay(c.window_start) : null;
  const end = c.window_end ? time.timeOfDay(c.window_end) : null;
  if (start && end) {
    const daily = time.dailyWindow(start, end, now);
    from = from === null ? daily.from : Math.max(from, daily.from);
    to = Math.min(to, daily.to);
  }
  return { from: from ?? time.startOfLocalDay(now), to };
}
