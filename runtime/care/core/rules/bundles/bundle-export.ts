/** `GET /rules/{id}/export`: a rule as a RuleBundle, labels as its ids. */
import type { CareContext } from "../../context";
import { isoNow } from "../../../../platform/core/clock";
import { packageInfo } from "../../../../platform/config/app-info";
import { findRule, listDependencies } from "../rule-read";
import { contextViews, edgesOf, ruleView, stepViews } from "../rule-model";
import { BUNDLE_SCHEMA_VERSION, type RuleBundle } from "./bundle-schema";
import { collectReferences } from "./references";

export async function exportRule(ctx: CareContext, id: number, exportedBy: string): Promise<RuleBundle> {
  const { flows, index } = await ctx.flows.snapshot();
  const r = findRule(flows, index, id);
  const rule = ruleView(r, false);
  const steps = stepViews(r);
  const labelOf = new Map(steps.map((s) => [s.id, s.label]));
  const versionOf = new Map(r.steps.map((s) => [s.row.id, typeof s.node.config_version === "number" ? s.node.config_version : 1]));
  const contexts = contextViews(r);
  const names = new Map(index.rules.map((row) => [row.id, String(flows.find((n) => n.id === row.tab_id)?.label ?? "")]));
  const deps = await listDependencies(ctx, id);
  return {
    schema_version: BUNDLE_SCHEMA_VERSION,
    exported_at: isoNow(ctx.clock),
    exported_by: exportedBy,
    source: { app: packageInfo().name, app_version: packageInfo().version },
    rule: {
      name: rule.name,
      description: rule.description,
      enabled: rule.enabled,
      trigger_type: rule.trigger_type,
      primary_sensor_ref: rule.primary_sensor_id ? { kind: "sensor", label: rule.primary_sensor_id } : null,
      cool_off_minutes: rule.cool_off_minutes,
      max_daily_triggers: rule.max_daily_triggers,
      occupancy_config: rule.occupancy_config,
      schedule_cron: rule.schedule_cron,
      schedule_timezone: rule.schedule_cron ? ctx.settings.app.timezone : null,
      max_concurrent_executions: rule.max_concurrent_executions,
      execution_timeout_minutes: rule.execution_timeout_minutes,
      ...(rule.chat_command ? { chat_command: rule.chat_command } : {}),
      ...(rule.cts_window_config ? { cts_window_config: rule.cts_window_config } : {}),
      ...(rule.system_health_config ? { system_health_config: rule.system_health_config } : {}),
    },
    references: collectReferences(rule.primary_sensor_id, steps, contexts, ctx.settings),
    contexts: contexts.map((c) => ({ context_type: c.context_type, schema_version: versionOfContext(r, c.id), config: c.config, negate: c.negate })),
    steps: steps.map((s) => ({
      label: s.label,
      step_type: s.step_type,
      schema_version: versionOf.get(s.id) ?? 1,
      enabled: s.enabled,
      position_x: s.position_x,
      position_y: s.position_y,
      config: s.config_json,
    })),
    edges: edgesOf(r).map((e) => ({
      source_label: labelOf.get(e.source_step_id)!,
      source_port: e.source_port,
      target_label: labelOf.get(e.target_step_id)!,
      target_port: "main",
    })),
    dependencies: deps.map((d) => ({
      parent_rule_name: names.get(d.depends_on_rule_id) ?? "",
      lookback_minutes: d.lookback_minutes,
      require_success: d.require_success,
    })),
  };
}

function versionOfContext(r: ReturnType<typeof findRule>, contextId: number): number {
  const node = r.contexts.find((c) => c.row.id === contextId)?.node;
  return typeof node?.config_version === "number" ? node.config_version : 1;
}
