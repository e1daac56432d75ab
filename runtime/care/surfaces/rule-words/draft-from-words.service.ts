/**
 * `POST /rules/draft-from-words` (issue 27 §4): a caregiver's sentence ("tell me if Mum isn't
 * up by nine on a weekday") and the node catalog (the step, filter and channel types with
 * their generated JSON Schemas) go to the authoring model, which answers a rule bundle. The
 * bundle passes the same gate as an import (schema, configs, the rule's validation, household
 * names); a refused answer gets one repair turn with the gate's messages, then the refusal
 * says why (422). The draft is returned as the nodes of a new, undeployed editor tab: nothing
 * is saved.
 */
import { z } from "zod";
import type { CareContext } from "../../core/context";
import { ValidationError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { listRooms } from "../../../household/rooms/rooms.service";
import { listSensors } from "../../../household/sensors/sensors.service";
import { listPersons } from "../../../household/persons/persons.service";
import { authoringModel, draftWithModel } from "../../services/knowledge/suggest/authoring-model";
import { channelTypes, filterTypes, stepTypes } from "../../core/language/catalog/catalog.service";
import { bundleSchema, BUNDLE_SCHEMA_VERSION, type RuleBundle } from "../../core/rules/bundles/bundle-schema";
import { bundleTabNodes } from "../../core/rules/bundles/bundle-import";

const PURPOSE = "to draft rules from words";

export const draftFromWordsBody = z.object({ sentence: z.string().trim().min(3).max(1000) }).strict();

export interface WordsDraft {
  sentence: string;
  bundle: RuleBundle;
  /** The new tab and its nodes, as the editor imports them (undeployed). */
  flows: FlowNode[];
  warnings: string[];
  model_id: string;
  repaired: boolean;
}

const SYSTEM = [
  "You turn a family caregiver's sentence into one automation rule of a home-care system for an older person.",
  "Use only the step, filter and channel types of the catalog you are given, with configs their JSON Schemas accept, and only the sensors, rooms and people listed.",
  "Keep the rule small: a trigger, the filters the sentence asks for, the steps that act. Label each step with a few plain words.",
  "Answer with one JSON object (a rule bundle) and nothing else: no prose, no code fences.",
].join(" ");

/** The catalog as the model reads it: available types, what they do, their config schemas and ports. */
function catalog(): string {
  const brief = (t: { type_name: string; description: string; config_schema: unknown; available: boolean; deprecated: boolean }) => ({
    type: t.type_name,
    description: t.description,
    config_schema: t.config_schema,
  });
  return JSON.stringify({
    step_types: stepTypes()
      .filter((t) => t.available && !t.deprecated)
      .map((t) => ({ ...brief(t), output_ports: t.output_ports })),
    context_types: filterTypes()
      .filter((t) => t.available && !t.deprecated)
      .map(brief),
    channels: channelTypes()
      .filter((t) => t.available)
      .map((t) => t.type_name),
  });
}

async function household(ctx: CareContext): Promise<string> {
  const sensors = (await listSensors(ctx)).map((s) => `${s.sensor_id}${s.room_name ? ` (${s.room_name})` : ""}`);
  const rooms = (await listRooms(ctx)).map((r) => r.name);
  const persons = (await listPersons(ctx)).map((p) => `${p.person_id} (${p.display_name})`);
  return `Sensors: ${sensors.join(", ") || "none"}\nRooms: ${rooms.join(", ") || "none"}\nPeople: ${persons.join(", ") || "none"}\nTimezone: ${ctx.settings.app.timezone}`;
}

export async function draftFromWords(ctx: CareContext, input: unknown): Promise<WordsDraft> {
  const { sentence } = parseInput(draftFromWordsBody, input);
  authoringModel(ctx.settings, PURPOSE); // 409 before anything else when there is no model
  // The same gate as an import; a dependency is not part of an editor tab, so it is refused here.
  const gate = async (b: RuleBundle): Promise<string[]> => {
    const { report } = await bundleTabNodes(ctx, b);
    return [...report.errors, ...(b.dependencies.length ? ["dependencies: leave empty (a drafted rule depends on no other rule)"] : [])];
  };
  const { value, model_id, repaired } = await draftWithModel(ctx.settings, {
    system: SYSTEM,
    purpose: PURPOSE,
    task:
      `Write the rule this sentence asks for, as a rule bundle with schema_version ${BUNDLE_SCHEMA_VERSION}: "${sentence}"\n\n` +
      "Catalog of the types a rule may use (JSON Schemas of their configs):\n" +
      catalog(),
    material: await household(ctx),
    schema: bundleSchema,
    gate,
    refused: (problem) => new ValidationError(`sentence: the authoring model's rule was refused after one repair: ${problem.slice(0, 600)}`),
  });
  const { report, nodes } = await bundleTabNodes(ctx, value);
  if (!nodes) throw new ValidationError(`sentence: the drafted rule was refused: ${report.errors.join("; ")}`);
  return { sentence, bundle: value, flows: nodes, warnings: report.warnings, model_id, repaired };
}
