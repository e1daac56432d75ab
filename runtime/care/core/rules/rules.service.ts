/**
 * Rules: a rule is a flow tab whose trigger node holds the rule's own settings. Creating,
 * updating and deleting a rule edits the flows through the one writer, so the running
 * runtime and the editor follow at once.
 */
import { randomBytes } from "node:crypto";
import { triggerConfigSchema } from "../../../../nodes/triggers/rule/rule.node";
import type { CareContext } from "../context";
import { isoNow } from "../../../platform/core/clock";
import { NotFoundError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import { newNodeId } from "./flow-draft";
import { bumpRulesVersion } from "./rules-version";
import { tabNode, triggerNode } from "./node-builders";
import { allRules, findRule, getRuleDetail } from "./rule-read";
import { nodeConfig, ruleView, type RuleDetail } from "./rule-model";
import { TRIGGER_KEYS, assertNameFree, assertSensorExists, ruleCreateSchema, ruleUpdateSchema, type RuleInput } from "./rule-fields";

function triggerConfig(current: Record<string, unknown>, body: RuleInput): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const k of TRIGGER_KEYS) if (body[k] !== undefined) merged[k] = body[k];
  return parseInput(triggerConfigSchema, merged);
}

export async function createRule(ctx: CareContext, input: unknown): Promise<RuleDetail> {
  const body = parseInput(ruleCreateSchema, input);
  const trigger = triggerConfig({}, body);
  await assertSensorExists(ctx, trigger.primary_sensor_id as string | null);
  const tabId = newNodeId();
  await ctx.flows.change((draft, index) => {
    assertNameFree(
      allRules(draft.nodes, index).map((r) => ({ id: r.row.id, name: String(r.tab.label) })),
      body.name,
    );
    draft.add(tabNode(tabId, body));
    draft.add(triggerNode(tabId, trigger));
  });
  const row = await ctx.db("rules").where({ tab_id: tabId }).first();
  return getRuleDetail(ctx, row.id, true);
}

export async function updateRule(ctx: CareContext, id: number, input: unknown): Promise<RuleDetail> {
  const body = parseInput(ruleUpdateSchema, input);
  await ctx.flows.change(async (draft, index) => {
    const r = findRule(draft.nodes, index, id);
    if (body.name !== undefined)
      assertNameFree(
        allRules(draft.nodes, index).map((x) => ({ id: x.row.id, name: String(x.tab.label) })),
        body.name,
        id,
      );
    const tab = draft.get(r.tab.id)!;
    if (body.name !== undefined) tab.label = body.name;
    if (body.description !== undefined) tab.info = body.description;
    if (body.enabled !== undefined) tab.disabled = !body.enabled;
    const trigger = draft.get(r.trigger?.id ?? "");
    const config = triggerConfig(trigger ? nodeConfig(trigger) : {}, body);
    await assertSensorExists(ctx, config.primary_sensor_id as string | null);
    if (trigger) trigger.config = config;
  });
  await ctx
    .db("rules")
    .where({ id })
    .update({ updated_at: isoNow(ctx.clock) });
  bumpRulesVersion(ctx.db);
  return getRuleDetail(ctx, id, true);
}

export async function deleteRule(ctx: CareContext, id: number): Promise<void> {
  await ctx.flows.change((draft, index) => {
    draft.removeTab(findRule(draft.nodes, index, id).tab.id);
  });
}

/** A new webhook secret for the rule, returned once in full. */
export async function generateWebhookSecret(ctx: CareContext, id: number): Promise<{ secret: string; created_at: string }> {
  const { flows, index } = await ctx.flows.snapshot();
  findRule(flows, index, id);
  const secret = randomBytes(24).toString("base64url");
  const created_at = isoNow(ctx.clock);
  const n = await ctx.db("rules").where({ id }).update({ webhook_secret: secret, webhook_secret_created_at: created_at, updated_at: created_at });
  if (!n) throw new NotFoundError(`Rule ${id} not found`);
  bumpRulesVersion(ctx.db);
  return { secret, created_at };
}

export { ruleView };
