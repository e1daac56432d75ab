/**
 * The replay: recorded inputs and state changes, in time order, on the rehearsal's clock. Before
 * each one the clock moves to its time through every timer that falls due on the way (cron
 * ticks, waits, prompt countdowns, occupancy timers, run timeouts), one at a time, and the
 * rehearsal waits after each until nothing is moving, so that what a timer starts is done (and
 * written, for the gates to see) before the next thing happens, as it was live.
 */
import type { BusTopics } from "../../../platform/core/event-bus";
import type { JournalEntry } from "../../core/journal/journal.store";
import type { PipelineEngine } from "../../core/pipeline/engine/engine";
import { triggerContext } from "../../core/pipeline/engine/types";
import type { RunningTriggers } from "../../core/pipeline/triggers/start-triggers";
import { fireLogged, rulesWithTrigger } from "../../core/pipeline/triggers/trigger-kit";
import type { RuleView } from "../../core/rules/rule-model";
import type { Scratch } from "./scratch-context";

/** A recorded input, or a change of state (applied in order, reaching no trigger). */
export type ReplayItem = { at: number; entry: JournalEntry } | { at: number; apply: () => Promise<void> | void };

export interface ReplayTarget {
  scratch: Scratch;
  engine: PipelineEngine;
  triggers: RunningTriggers;
  rule: RuleView;
  /** Real time (epoch ms) after which the rehearsal gives up. */
  deadline: number;
  /** Called before anything can read the household's state: an input reaching the rule, a timer. */
  beforeAct(): Promise<void>;
  /** Work of the rehearsal's own still under way (a recorded answer being given); absent: none. */
  busy?(): boolean;
}

export class ReplayTimeout extends Error {}

/** Waits until the triggers, the engine and the rehearsal's own work are idle for two turns of the event loop in a row. */
async function settle(t: ReplayTarget): Promise<void> {
  for (let quiet = 0; quiet < 2;) {
    await t.triggers.idle();
    await new Promise((r) => setImmediate(r));
    quiet = t.engine.quiet() && !t.busy?.() ? quiet + 1 : 0;
    if (Date.now() > t.deadline) throw new ReplayTimeout("the rehearsal took too long");
  }
}

/** Moves the clock to `ms`, stopping at each timer on the way. */
async function advanceTo(t: ReplayTarget, ms: number): Promise<void> {
  const { clock } = t.scratch;
  for (;;) {
    const next = clock.nextDueAt();
    if (next === undefined || next > ms) break;
    await t.beforeAct();
    clock.set(Math.max(next, clock.now()));
    await settle(t);
  }
  if (ms > clock.now()) clock.set(ms);
}

/**
 * Whether a recorded input can reach the rule's trigger: sensor events only sensor_event rules
 * (of its sensor, when the rule names one) and occupancy rules (presence changes), webhook calls
 * and chat commands their rules, dementia signals theirs. Sightings, answers and scene samples
 * reach no trigger (the state they changed is replayed as state). Filters read state, not
 * events, so skipping the others changes nothing but the time a rehearsal takes.
 */
function concerns(rule: RuleView, entry: JournalEntry): boolean {
  switch (entry.topic) {
    case "sensor.event": {
      const e = entry.payload as BusTopics["sensor.event"];
      if (rule.trigger_type === "sensor_event") return rule.primary_sensor_id === null || rule.primary_sensor_id === e.sensor_id;
      return rule.trigger_type === "occupancy_duration" && e.kind === "presence";
    }
    case "webhook.called":
      return rule.trigger_type === "webhook";
    case "chat.command":
      return rule.trigger_type === "chat_app";
    case "cts.signal":
      return rule.trigger_type === "dementia_signal";
    default:
      return false;
  }
}

/** An input as it reached the triggers live: on the bus, or through the firer for webhooks and chat commands. */
async function feed(t: ReplayTarget, entry: JournalEntry): Promise<void> {
  const ctx = t.scratch.ctx;
  switch (entry.topic) {
    case "webhook.called": {
      const p = entry.payload as BusTopics["webhook.called"];
      if (p.rule_id !== t.rule.id || t.rule.trigger_type !== "webhook") return;
      const payload = (p.payload ?? {}) as Record<string, unknown>;
      await fireLogged(ctx, t.engine, {
        rule_id: t.rule.id,
        trigger: triggerContext({ trigger_type: "webhook", sensor_id: t.rule.primary_sensor_id, webhook_payload: payload }),
        trigger_input: structuredClone(payload),
      });
      return;
    }
    case "chat.command": {
      const p = entry.payload as BusTopics["chat.command"];
      const input = { command: p.command, args: p.args, text: p.text, chat_id: p.chat_id };
      for (const r of (await rulesWithTrigger(ctx, "chat_app")).filter((r) => !r.chat_command || r.chat_command === p.command))
        await fireLogged(ctx, t.engine, {
          rule_id: r.id,
          trigger: triggerContext({ trigger_type: "chat_app", sensor_id: r.primary_sensor_id, webhook_payload: structuredClone(input) }),
          trigger_input: structuredClone(input),
        });
      return;
    }
    default:
      ctx.bus.publish(entry.topic as "sensor.event", entry.payload as BusTopics["sensor.event"]);
  }
}

/** Replays the items (sorted by time) and then runs the clock to `toMs`; returns how many inputs reached the rule's triggers. */
export async function replay(t: ReplayTarget, items: readonly ReplayItem[], toMs: number): Promise<number> {
  let inputs = 0;
  await settle(t);
  for (const item of items) {
    await advanceTo(t, item.at);
    if ("apply" in item) {
      await item.apply();
      continue;
    }
    if (!concerns(t.rule, item.entry)) continue;
    inputs++;
    await t.beforeAct();
    await feed(t, item.entry);
    await settle(t);
  }
  await advanceTo(t, toMs);
  await settle(t);
  return inputs;
}
