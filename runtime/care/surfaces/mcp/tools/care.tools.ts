/** Care: alerts, event logs, rules and their runs, e-ink displays, prompts, rule bundles. */
import { z } from "zod";
import YAML from "yaml";
import { listAlerts } from "../../../../household/alerts/alerts.service";
import { sameText } from "../../../../household/tracking/match";
import { EVENT_LOG_STATUSES, listEventLogs } from "../../../core/events/event-logs.service";
import { listRules } from "../../../core/rules/rule-read";
import { listSteps } from "../../../core/rules/steps.service";
import { executeRule, getRun, queryRuns } from "../../../core/pipeline/runs/runs.service";
import { displayStates } from "../../../services/eink/display-states.service";
import { respond } from "../../../services/interactive";
import { ACTIONS } from "../../../../household/prompts/prompts.store";
import { exportRule } from "../../../core/rules/bundles/bundle-export";
import { commitImport, previewImport } from "../../../core/rules/bundles/bundle-import";
import type { CareContext } from "../../../core/context";
import { defineTool, ToolError, type ToolDef } from "../tool";
import { storeId } from "../../../../../nodes/_kit/store-id";

const RUN_STATUSES = ["running", "waiting", "completed", "failed", "cancelled"] as const;
const ruleId = storeId().describe("the rule's id (get_rules)");
const limit = z.number().int().min(1).max(200).default(20);

/** The ids of the rules with this name (any case); none when no rule has it. */
async function ruleIdsNamed(ctx: CareContext, name: string): Promise<number[]> {
  return (await listRules(ctx, false)).filter((r) => sameText(r.name, name)).map((r) => r.id);
}

const importReport = z.object({
  status: z.enum(["ok", "warning", "error"]),
  rule_name: z.string(),
  rule_id: z.number().nullable(),
  steps: z.array(z.object({ label: z.string(), step_type: z.string(), status: z.enum(["ok", "migrated", "warning", "error"]), description: z.string() })),
  warnings: z.array(z.string()),
  errors: z.array(z.string()),
  min_app_version_required: z.string(),
});

function bundleOf(input: string | Record<string, unknown>): unknown {
  if (typeof input !== "string") return input;
  try {
    return YAML.parse(input) as unknown; // JSON is YAML too
  } catch (err) {
    throw new ToolError(`bundle: not valid JSON or YAML (${(err as Error).message})`);
  }
}

export const CARE_TOOLS: readonly ToolDef[] = [
  defineTool({
    name: "get_alerts",
    title: "Alerts",
    description: "Recent alerts (falls, missed medication, help requests), newest first; unresolved ones by default first to look at.",
    input: z.object({ resolved: z.boolean().optional(), room_name: z.string().min(1).max(100).optional(), limit }),
    output: z.array(
      z.object({
        id: z.number(),
        timestamp: z.string(),
        alert_type: z.string(),
        level: z.string(),
        description: z.string(),
        room_name: z.string().nullable(),
        resolved: z.boolean(),
        assistance_needed: z.boolean(),
      }),
    ),
    twin: () => "GET /api/v1/alerts",
    run: async ({ ctx }, a) =>
      (
        await listAlerts(ctx, {
          ...(a.resolved !== undefined ? { resolved: a.resolved } : {}),
          ...(a.room_name ? { room_name: a.room_name } : {}),
          limit: a.limit,
          offset: 0,
        })
      ).map((x) => ({
        id: x.id,
        timestamp: x.timestamp,
        alert_type: x.alert_type,
        level: x.level,
        description: x.description,
        room_name: x.room_name,
        resolved: x.resolved,
        assistance_needed: x.assistance_needed,
      })),
  }),
  defineTool({
    name: "get_event_logs",
    title: "Rule event logs",
    description: "What the care rules did: one log per run, newest first, with its outcome.",
    input: z.object({ rule_name: z.string().min(1).max(200).optional(), status: z.enum(EVENT_LOG_STATUSES).optional(), limit }),
    output: z.array(
      z.object({
        id: z.number(),
        timestamp: z.string(),
        rule_name: z.string().nullable(),
        room_name: z.string().nullable(),
        status: z.string(),
        trigger_type: z.string().nullable(),
        execution_id: z.number().nullable(),
      }),
    ),
    twin: () => "GET /api/v1/events",
    run: async ({ ctx }, a) =>
      (
        await listEventLogs(ctx, { ...(a.rule_name ? { rule_name: a.rule_name } : {}), ...(a.status ? { status: a.status } : {}), limit: a.limit, offset: 0 })
      ).map((l) => ({
        id: l.id,
        timestamp: l.timestamp,
        rule_name: l.rule_name,
        room_name: l.room_name,
        status: l.status,
        trigger_type: l.trigger_type,
        execution_id: l.execution_id,
      })),
  }),
  defineTool({
    name: "get_rules",
    title: "Care rules",
    description: "The care rules, with how they fire, their cool-off and daily limit.",
    input: z.object({ enabled_only: z.boolean().default(true) }),
    output: z.array(
      z.object({
        id: z.number(),
        name: z.string(),
        description: z.string(),
        enabled: z.boolean(),
        trigger_type: z.string(),
        cool_off_minutes: z.number(),
        max_daily_triggers: z.number().nullable(),
      }),
    ),
    twin: () => "GET /api/v1/rules",
    run: async ({ ctx }, a) =>
      (await listRules(ctx, false))
        .filter((r) => !a.enabled_only || r.enabled)
        .map((r) => ({
          id: r.id,
          name: r.name,
          description: r.description,
          enabled: r.enabled,
          trigger_type: r.trigger_type,
          cool_off_minutes: r.cool_off_minutes,
          max_daily_triggers: r.max_daily_triggers ?? null,
        })),
  }),
  defineTool({
    name: "get_workflow_executions",
    title: "Rule runs",
    description: "Recent runs of the care rules, newest first, optionally of one rule (by name) or one status.",
    input: z.object({ rule_name: z.string().min(1).max(200).optional(), status: z.enum(RUN_STATUSES).optional(), limit }),
    output: z.array(
      z.object({
        id: z.number(),
        rule_id: z.number().nullable(),
        rule_name: z.string().nullable(),
        status: z.string(),
        started_at: z.string(),
        updated_at: z.string(),
        error: z.string().nullable(),
      }),
    ),
    twin: () => "GET /api/v1/workflows",
    run: async ({ ctx }, a) => {
      const ids = a.rule_name === undefined ? [undefined] : await ruleIdsNamed(ctx, a.rule_name);
      const rows = (
        await Promise.all(
          ids.map((id) => queryRuns(ctx, { ...(id !== undefined ? { rule_id: id } : {}), ...(a.status ? { status: a.status } : {}), limit: a.limit })),
        )
      )
        .flat()
        .sort((x, y) => y.id - x.id)
        .slice(0, a.limit);
      return rows.map((r) => ({
        id: r.id,
        rule_id: r.rule_id,
        rule_name: r.rule_name,
        status: r.status,
        started_at: r.started_at,
        updated_at: r.updated_at,
        error: r.error,
      }));
    },
  }),
  defineTool({
    name: "get_rule_pipeline",
    title: "A rule's steps",
    description: "The steps of one rule in order, with their type, label and configuration.",
    input: z.object({ rule_id: ruleId }),
    output: z.array(
      z.object({
        id: z.number(),
        order: z.number(),
        step_type: z.string(),
        label: z.string(),
        config_json: z.record(z.string(), z.unknown()),
        enabled: z.boolean(),
      }),
    ),
    twin: (a) => `GET /api/v1/rules/${a.rule_id}/steps`,
    run: async ({ ctx }, a) =>
      (await listSteps(ctx, a.rule_id)).map((s) => ({
        id: s.id,
        order: s.order,
        step_type: s.step_type,
        label: s.label,
        config_json: s.config_json,
        enabled: s.enabled,
      })),
  }),
  defineTool({
    name: "trigger_rule",
    title: "Run a rule now",
    description: "Run a care rule now, by hand (its filters, cool-off and daily limit do not hold a manual run). Returns the run's id.",
    input: z.object({ rule_id: ruleId }),
    output: z.object({ execution_id: z.number(), status: z.string() }),
    twin: (a) => `POST /api/v1/rules/${a.rule_id}/execute`,
    destructive: true,
    run: async ({ ctx, principal }, a) => {
      const { execution_id } = await executeRule(ctx, a.rule_id, principal.name);
      const run = await getRun(ctx, execution_id).catch(() => null);
      return { execution_id, status: run?.status ?? "running" };
    },
  }),
  defineTool({
    name: "get_eink_display_status",
    title: "E-ink displays",
    description: "What each e-ink display shows: whether it has an active card, whether it expired, and the card's text.",
    input: z.object({ sensor_id: z.string().min(1).max(200).optional() }),
    output: z.array(
      z.object({
        sensor_id: z.string(),
        has_active_image: z.boolean(),
        expired: z.boolean(),
        expires_at: z.string().nullable(),
        rendered_text: z.string().nullable(),
        last_served_at: z.string().nullable(),
      }),
    ),
    twin: () => "GET /api/v1/image/states",
    run: async ({ ctx }, a) =>
      (await displayStates(ctx, a.sensor_id)).map((d) => ({
        sensor_id: d.sensor_id,
        has_active_image: d.has_active_image,
        expired: d.expired,
        expires_at: d.expires_at,
        rendered_text: d.rendered_text,
        last_served_at: d.last_served_at,
      })),
  }),
  defineTool({
    name: "respond_to_interactive_prompt",
    title: "Answer a prompt",
    description:
      "Answer an interactive prompt a rule put to the senior (escalate or dismiss), as the voice companion does. The first answer wins; a later one is acknowledged, not applied.",
    input: z.object({
      execution_id: storeId(),
      step_id: z.number().int().nonnegative(),
      action: z.enum(ACTIONS),
      raw_response: z.record(z.string(), z.unknown()).optional().describe("what the senior said or chose, kept with the answer"),
    }),
    output: z.object({ success: z.boolean(), message: z.string(), action: z.enum(ACTIONS) }),
    twin: () => "POST /api/v1/interactive-responses",
    destructive: true,
    run: ({ ctx, principal }, a) =>
      respond(
        ctx,
        { execution_id: a.execution_id, step_id: a.step_id, channel: "pwa_realtime_ai", action: a.action, raw_response: a.raw_response ?? {} },
        principal.name,
      ),
  }),
  defineTool({
    name: "get_rule_bundle",
    title: "Export a rule",
    description: "A rule as a portable bundle (JSON): its trigger, filters, steps and edges, with labels as ids.",
    input: z.object({ rule_id: ruleId }),
    output: z.object({ schema_version: z.number(), rule: z.record(z.string(), z.unknown()) }).loose(),
    twin: (a) => `GET /api/v1/rules/${a.rule_id}/export`,
    run: async ({ ctx, principal }, a) =>
      (await exportRule(ctx, a.rule_id, principal.name)) as unknown as { schema_version: number; rule: Record<string, unknown> },
  }),
  defineTool({
    name: "import_rule_bundle",
    title: "Import a rule",
    description:
      "Check (mode preview, the default) or import (mode commit) a rule bundle, as get_rule_bundle returns it (an object, or JSON or YAML text). Commit needs a key allowed to import rules.",
    input: z.object({
      bundle: z.union([z.record(z.string(), z.unknown()), z.string().max(5_000_000)]).describe("the bundle: an object, or its JSON or YAML text"),
      mode: z.enum(["preview", "commit"]).default("preview"),
    }),
    output: importReport,
    twin: (a) => (a.mode === "commit" ? "POST /api/v1/rules/import" : "GET /api/v1/rules"),
    destructive: true,
    run: ({ ctx }, a) => (a.mode === "commit" ? commitImport(ctx, bundleOf(a.bundle)) : previewImport(ctx, bundleOf(a.bundle))),
  }),
];
