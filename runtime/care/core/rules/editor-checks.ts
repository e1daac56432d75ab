/**
 * What the editor's forms ask while a caregiver edits a rule: the household's names for the
 * pickers, a cron expression in plain words with its next fire times, and a rule tab as the
 * editor holds it (not yet deployed) checked by `checkRuleTab`, the validator every deploy
 * and REST `validate` run, so the form shows exactly what a deploy would refuse.
 */
import cronstrue from "cronstrue";
import { z } from "zod";
import { cronProblem } from "../../../../nodes/triggers/rule/rule.node";
import type { CareContext } from "../context";
import { ValidationError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { listPersons } from "../../../household/persons/persons.service";
import { nextCronTime, parseCron } from "../language/cron-schedule";
import { listRooms } from "../../../household/rooms/rooms.service";
import { listSensors } from "../../../household/sensors/sensors.service";
import { readHouseholdNames } from "./household-names";
import { checkRuleTab, describeProblem, type TabProblem } from "./rule-tab-checks";

export interface HouseholdChoices {
  sensors: Array<{ value: string; label: string }>;
  rooms: Array<{ value: string; label: string }>;
  persons: Array<{ value: string; label: string }>;
  /** The tracking cameras, as `GET /cts/cameras` lists them (`cts.cameras`). */
  cts_cameras: Array<{ value: string; label: string }>;
}

/** The options of the sensor, room, person and tracking-camera pickers: the stored value and what a person reads. */
export async function householdChoices(ctx: CareContext): Promise<HouseholdChoices> {
  const [sensors, rooms, persons] = await Promise.all([listSensors(ctx), listRooms(ctx), listPersons(ctx)]);
  return {
    sensors: sensors.map((s) => ({ value: s.sensor_id, label: `${s.name || s.sensor_id}${s.room_name ? ` (${s.room_name})` : ""} · ${s.sensor_id}` })),
    rooms: rooms.map((r) => ({ value: r.name, label: r.name })),
    persons: persons.map((p) => ({ value: p.person_id, label: `${p.display_name} · ${p.person_id}` })),
    cts_cameras: ctx.settings.cts.cameras.map((c) => ({ value: c.id, label: `${c.name || c.id}${c.location ? ` (${c.location})` : ""} · ${c.id}` })),
  };
}

export interface CronPreview {
  description: string;
  time_zone: string;
  /** The next fire times: the instant and the household's wall time. */
  next: Array<{ at: string; local: string }>;
}

/** A cron expression in plain words and its next three fire times in `app.timezone`; 422 when it does not parse. */
export function cronPreview(ctx: CareContext, raw: unknown, count = 3): CronPreview {
  if (typeof raw !== "string" || raw.trim() === "") throw new ValidationError("expression: required (a cron expression such as '0 8 * * *')");
  const expression = raw.trim();
  const problem = cronProblem(expression);
  const fields = problem ? null : parseCron(expression);
  if (!fields) throw new ValidationError(`expression: ${problem ?? "not a valid cron expression"}`);
  const timeZone = ctx.settings.app.timezone;
  const wall = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  const next: CronPreview["next"] = [];
  for (let after = ctx.clock.now(), i = 0; i < count; i++) {
    const at = nextCronTime(fields, after, timeZone);
    if (at === null) break;
    next.push({ at: new Date(at).toISOString(), local: wall.format(at) });
    after = at;
  }
  return { description: describeCron(expression), time_zone: timeZone, next };
}

function describeCron(expression: string): string {
  try {
    return cronstrue.toString(expression, { use24HourTimeFormat: true, verbose: true });
  } catch {
    // node-cron accepts a few forms cronstrue does not word; the fire times still say it.
    return expression;
  }
}

const tabDraftSchema = z
  .object({
    tab_id: z.string().min(1).max(200),
    nodes: z
      .array(z.looseObject({ id: z.string().min(1).max(200), type: z.string().min(1).max(200), z: z.string().max(200).optional() }))
      .max(2000, "at most 2,000 nodes"),
  })
  .strict();

/** The problems of a rule tab as the editor holds it, each with the line a deploy would show. */
export async function checkTabDraft(ctx: CareContext, body: unknown): Promise<{ problems: Array<TabProblem & { text: string }> }> {
  const { tab_id, nodes } = parseInput(tabDraftSchema, body);
  const flows = nodes as unknown as FlowNode[];
  if (!flows.some((n) => n.id === tab_id && n.type === "tab")) throw new ValidationError("nodes: must hold the tab itself (type 'tab', id = tab_id)");
  const problems = checkRuleTab(flows, tab_id, await readHouseholdNames(ctx), ctx.settings);
  return { problems: problems.map((p) => ({ ...p, text: describeProblem(p) })) };
}
