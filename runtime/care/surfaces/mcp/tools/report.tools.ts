/**
 * The report tools: `get_daily_report`, `get_person_timeline`, `get_open_sessions`, over the
 * reports of runtime/care/services/reports/ (daily reports stored at local midnight, the timeline of
 * activities, sightings and moves, open activity sessions). `get_daily_report` answers a list:
 * one report, or one per member when no person is named.
 */
import { z } from "zod";
import { defineTool, type ToolDef } from "../tool";
import { dailyReport, openSessions, personTimeline } from "../../../services/reports";

const enc = encodeURIComponent;
const personId = z.string().min(1).max(64).describe("the member's id, e.g. grandma_rose");
const records = z.array(z.record(z.string(), z.unknown()));
const plain = (v: unknown): Array<Record<string, unknown>> => JSON.parse(JSON.stringify(Array.isArray(v) ? v : [v])) as Array<Record<string, unknown>>;

export const REPORT_INPUTS = {
  get_daily_report: z.object({
    person_id: personId.optional().describe("one member; all members when absent"),
    report_date: z.iso.date().optional().describe("YYYY-MM-DD in the household's time zone; today when absent"),
  }),
  get_person_timeline: z.object({
    person_id: personId,
    minutes: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 60)
      .default(60),
  }),
  get_open_sessions: z.object({ person_id: personId.optional(), activity_type: z.string().min(1).max(100).optional() }),
};

/** The three tools. */
export const REPORT_TOOL_DEFS: readonly ToolDef[] = [
  defineTool({
    name: "get_daily_report",
    title: "Daily report",
    description: "The end-of-day report of one member or all: meals, medication, sleep, bathroom visits, alerts.",
    input: REPORT_INPUTS.get_daily_report,
    output: records,
    twin: () => "GET /api/v1/activities",
    run: async (t, a) => plain(await dailyReport(t.ctx, a)),
  }),
  defineTool({
    name: "get_person_timeline",
    title: "A member's timeline",
    description: "A member's activities and camera sightings of the last minutes, in time order.",
    input: REPORT_INPUTS.get_person_timeline,
    output: records,
    twin: (a) => `GET /api/v1/persons/${enc(a.person_id)}/history`,
    run: async (t, a) => plain(await personTimeline(t.ctx, a)),
  }),
  defineTool({
    name: "get_open_sessions",
    title: "Open activity sessions",
    description: "Activity sessions still open (a meal started, a bathroom visit going on), of one member or all.",
    input: REPORT_INPUTS.get_open_sessions,
    output: records,
    twin: () => "GET /api/v1/activities",
    run: async (t, a) => plain(await openSessions(t.ctx, a)),
  }),
];

export const REPORT_TOOLS: readonly ToolDef[] = REPORT_TOOL_DEFS;

/** Names a setting may list although the tools are not registered yet. */
export const PENDING_REPORT_TOOLS: readonly string[] = REPORT_TOOL_DEFS.filter((d) => !REPORT_TOOLS.includes(d)).map((d) => d.name);
