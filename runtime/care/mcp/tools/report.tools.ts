/**
 * The report tools: `get_daily_report`, `get_person_timeline`, `get_open_sessions`. Their
 * inputs are defined here; their data services (runtime/care/reports/: `dailyReport`,
 * `personTimeline`, `openSessions`) are being written in parallel. Until they exist these tools
 * are not registered: `REPORT_TOOLS` is empty and `PENDING_REPORT_TOOLS` names them (a setting
 * may list them; the log says they are not available yet).
 *
 * To register them once runtime/care/reports/ exists: import the three functions, put each
 * call in its `run` below (marked TODO), and change `REPORT_TOOLS` to `REPORT_TOOL_DEFS`.
 */
import { z } from "zod";
import { defineTool, type ToolDef } from "../tool";
// import { dailyReport, openSessions, personTimeline } from "../../reports";

const enc = encodeURIComponent;
const personId = z.string().min(1).max(64).describe("the member's id, e.g. grandma_rose");
const unavailable = (): never => {
  throw new Error("not built yet");
};

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

/** The three tools, ready but for their services. */
export const REPORT_TOOL_DEFS: readonly ToolDef[] = [
  defineTool({
    name: "get_daily_report",
    title: "Daily report",
    description: "The end-of-day report of one member or all: meals, medication, sleep, bathroom visits, alerts.",
    input: REPORT_INPUTS.get_daily_report,
    output: z.record(z.string(), z.unknown()),
    twin: () => "GET /api/v1/activities",
    run: () => unavailable(), // TODO: (t, a) => dailyReport(t.ctx, a)
  }),
  defineTool({
    name: "get_person_timeline",
    title: "A member's timeline",
    description: "A member's activities and camera sightings of the last minutes, in time order.",
    input: REPORT_INPUTS.get_person_timeline,
    output: z.record(z.string(), z.unknown()),
    twin: (a) => `GET /api/v1/persons/${enc(a.person_id)}/history`,
    run: () => unavailable(), // TODO: (t, a) => personTimeline(t.ctx, a)
  }),
  defineTool({
    name: "get_open_sessions",
    title: "Open activity sessions",
    description: "Activity sessions still open (a meal started, a bathroom visit going on), of one member or all.",
    input: REPORT_INPUTS.get_open_sessions,
    output: z.record(z.string(), z.unknown()),
    twin: () => "GET /api/v1/activities",
    run: () => unavailable(), // TODO: (t, a) => openSessions(t.ctx, a)
  }),
];

/** Registered report tools: none until runtime/care/reports/ exists (then `REPORT_TOOL_DEFS`). */
export const REPORT_TOOLS: readonly ToolDef[] = [];

/** Names a setting may list although the tools are not registered yet. */
export const PENDING_REPORT_TOOLS: readonly string[] = REPORT_TOOL_DEFS.filter((d) => !REPORT_TOOLS.includes(d)).map((d) => d.name);
