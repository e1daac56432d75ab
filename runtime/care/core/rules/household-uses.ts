/**
 * Which rules name a sensor or a room (in their trigger, a step or a filter): a room or sensor
 * a rule still uses is not deleted under it (issue 43 §1), or the rule would fail its next
 * deploy check and, until then, wait for a sensor that no longer exists. Read from the flows,
 * the rules' one source; a disabled rule counts too, as for cards and quizzes
 * (knowledge/rule-references.ts): enabling it again would need the sensor.
 */
import { configJsonSchema } from "../../../../nodes/_kit/config";
import { refStrings } from "../../../../nodes/_kit/fields";
import type { CareContext } from "../context";
import { nameKey } from "../../../platform/core/name-key";
import { specOfNode } from "./care-types";
import { allRules } from "./rule-read";
import { nodeConfig, ruleView, type RuleNodes } from "./rule-model";
import { triggerSchema } from "./rule-tab-checks";

export interface HouseholdNamesUsed {
  sensors: Set<string>;
  /** By name key ('Küche' and 'KÜCHE' are one room). */
  rooms: Set<string>;
}

/** The sensor ids and room name keys one rule names anywhere. */
export function householdNamesOfRule(r: RuleNodes): HouseholdNamesUsed {
  const used: HouseholdNamesUsed = { sensors: new Set(), rooms: new Set() };
  const add = (refs: ReturnType<typeof refStrings>) => {
    for (const ref of refs) {
      if (ref.ref === "sensor") used.sensors.add(ref.value);
      else if (ref.ref === "room") used.rooms.add(nameKey(ref.value));
    }
  };
  if (r.trigger) add(refStrings(triggerSchema, nodeConfig(r.trigger)));
  for (const { node } of [...r.steps, ...r.contexts]) {
    const spec = specOfNode(node.type);
    if (spec) add(refStrings(configJsonSchema(spec), nodeConfig(node)));
  }
  return used;
}

export interface RuleUsingHousehold {
  rule_id: number;
  rule_name: string;
  /** What of the asked it names: `sensor 'x'` or `room 'y'`. */
  names: string[];
}

/** The rules that name one of these sensors or this room. */
export async function rulesUsingHousehold(ctx: CareContext, asked: { sensors: readonly string[]; room?: string }): Promise<RuleUsingHousehold[]> {
  const { flows, index } = await ctx.flows.snapshot();
  const roomKey = asked.room === undefined ? undefined : nameKey(asked.room);
  const out: RuleUsingHousehold[] = [];
  for (const r of allRules(flows, index)) {
    const used = householdNamesOfRule(r);
    const names = [
      ...(roomKey !== undefined && used.rooms.has(roomKey) ? [`room '${asked.room}'`] : []),
      ...asked.sensors.filter((s) => used.sensors.has(s)).map((s) => `sensor '${s}'`),
    ];
    if (names.length > 0) out.push({ rule_id: r.row.id, rule_name: ruleView(r, false).name, names });
  }
  return out;
}

/** `rule 3 'Bathroom check'`, `rules 3 'Bathroom check' and 5 'Night wandering'`. */
export function sayRules(uses: readonly RuleUsingHousehold[]): string {
  const each = uses.map((u) => `${u.rule_id} '${u.rule_name}'`);
  if (each.length === 1) return `rule ${each[0]}`;
  return `rules ${each.slice(0, -1).join(", ")} and ${each[each.length - 1]}`;
}
