/**
 * Drafting with the authoring model (`knowledge.authoring_model`, an `llm.models` id): the
 * answer must be one JSON object the resource's zod schema accepts. The JSON Schema goes in the
 * prompt always and as guided decoding when the entry says its server supports it
 * (`guided_decoding`); an invalid first answer gets one repair turn that quotes the problems.
 * A draft is returned to the caller, never saved.
 */
import { z } from "zod";
import type { Settings } from "../../../../../settings";
import { CareflowError, NotSetUpError, ServiceUnavailableError } from "../../../../platform/core/errors";
import { describeZodError } from "../../../../platform/core/validation";
import { chat, describeModel, ModelServerError, type ChatMessage, type ModelEntry } from "../../llm";

/** The model answered twice, and neither answer was a valid draft. */
export class BadModelAnswerError extends CareflowError {
  constructor(message: string) {
    super(502, message);
  }
}

/**
 * What a caregiver reads when drafting cannot work because no model is set up: no settings
 * path, and who can set it up (there is no settings page; the README section says how).
 */
export const NO_AUTHORING_MODEL = {
  part: "language_model",
  message:
    "Drafting needs a language model, and none is set up in this home yet. " +
    "Whoever installed careflow can set one up (README, \u201cModels, prompts and notifications\u201d); until then, write it yourself.",
} as const;

/** True when drafting can work here: an authoring model is named, listed and writes text. */
export function authoringModelReady(settings: Settings): boolean {
  try {
    authoringModel(settings);
    return true;
  } catch {
    return false;
  }
}

export function authoringModel(settings: Settings, purpose = "to draft cards and quizzes"): ModelEntry {
  const id = settings.knowledge.authoring_model;
  if (!id) throw new NotSetUpError(`No authoring model: set knowledge.authoring_model to an llm.models id (a text model) ${purpose}`, NO_AUTHORING_MODEL);
  const entry = settings.llm.models.find((m) => m.id === id);
  if (!entry) throw new NotSetUpError(`knowledge.authoring_model '${id}' is not in llm.models: add the entry or name another model`, NO_AUTHORING_MODEL);
  if (!entry.capabilities.includes("text"))
    throw new NotSetUpError(
      `knowledge.authoring_model '${id}' has no 'text' capability (it has ${entry.capabilities.join(", ")}): name a text model`,
      NO_AUTHORING_MODEL,
    );
  return entry;
}

export interface DraftRequest<S extends z.ZodType> {
  /** What to write and from what. */
  task: string;
  /** The source text (a document, a quiz). */
  material: string;
  schema: S;
  /** The system message, when the draft is not material for the senior (a rule, say). */
  system?: string;
  /** Where the model is used, for the 409 without one ("to draft rules from words"). */
  purpose?: string;
  /**
   * A further gate after the schema (a rule's deploy validation): the problems it finds, or
   * none. Its problems go into the repair turn like the schema's.
   */
  gate?: (value: z.output<S>) => Promise<string[]>;
  /** The error when the repaired answer is still refused (default: 502, a bad model answer). */
  refused?: (problem: string) => CareflowError;
}

const SYSTEM = [
  "You write short, clear material for an older person with memory loss, on behalf of their family.",
  "Use plain, warm words and short sentences. Use only facts from the material you are given; never invent names, dates or numbers.",
  "Answer with one JSON object and nothing else: no prose, no code fences.",
].join(" ");

/** The answer's JSON object (a code fence or text around it is tolerated). */
export function jsonOf(text: string): unknown {
  const trimmed = text.trim().replace(/^```(?:json)?\s*|\s*```$/g, "");
  try {
    return JSON.parse(trimmed);
  } catch {
    const start = trimmed.indexOf("{");
    const end = trimmed.lastIndexOf("}");
    if (start >= 0 && end > start) return JSON.parse(trimmed.slice(start, end + 1));
    throw new Error("the answer is not JSON");
  }
}

async function check<S extends z.ZodType>(req: DraftRequest<S>, text: string): Promise<{ ok: true; value: z.output<S> } | { ok: false; problem: string }> {
  let json: unknown;
  try {
    json = jsonOf(text);
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
  const parsed = req.schema.safeParse(json);
  if (!parsed.success) return { ok: false, problem: describeZodError(parsed.error) };
  const problems = req.gate ? await req.gate(parsed.data) : [];
  return problems.length ? { ok: false, problem: problems.join("; ") } : { ok: true, value: parsed.data };
}

async function ask(model: ModelEntry, messages: ChatMessage[], jsonSchema: Record<string, unknown>): Promise<string> {
  try {
    return (await chat({ model, messages, guided_json: model.guided_decoding ? jsonSchema : undefined })).text;
  } catch (err) {
    if (err instanceof ModelServerError) throw new ServiceUnavailableError(`The authoring ${describeModel(model)} did not answer: ${err.message}`);
    throw err;
  }
}

export async function draftWithModel<S extends z.ZodType>(
  settings: Settings,
  req: DraftRequest<S>,
): Promise<{ value: z.output<S>; model_id: string; repaired: boolean }> {
  const model = authoringModel(settings, req.purpose);
  const jsonSchema = z.toJSONSchema(req.schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  const messages: ChatMessage[] = [
    { role: "system", text: req.system ?? SYSTEM },
    { role: "user", text: `${req.task}\n\nAnswer with a JSON object matching this JSON Schema:\n${JSON.stringify(jsonSchema)}\n\nMaterial:\n${req.material}` },
  ];
  const first = await ask(model, messages, jsonSchema);
  const checked = await check(req, first);
  if (checked.ok) return { value: checked.value, model_id: model.id, repaired: false };
  // One repair turn: the model sees its answer and what is wrong with it.
  messages.push(
    { role: "assistant", text: first },
    { role: "user", text: `That answer is not valid: ${checked.problem}. Answer again with only the corrected JSON object.` },
  );
  const second = await ask(model, messages, jsonSchema);
  const again = await check(req, second);
  if (again.ok) return { value: again.value, model_id: model.id, repaired: true };
  if (req.refused) throw req.refused(again.problem);
  throw new BadModelAnswerError(`The authoring ${describeModel(model)} gave no valid draft after one repair: ${again.problem.slice(0, 300)}`);
}
