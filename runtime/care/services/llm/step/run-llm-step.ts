/**
 * What `llm_call` does, and the legacy `vision_analysis`, `logic_reasoning` and `translation`
 * with it: build the prompt and images, ask the registry model, retry on the hallucination
 * marker, parse, write `output_key` (and `notification_suppressed` for a logic answer).
 * A failure throws with the model and the server's status in the message: the engine marks
 * the step failed and stops the run, as the steps after it were written to use the answer.
 */
import path from "node:path";
import type { ModelStepConfig } from "../../../../../vocabulary/models";
import type { StepInput, StepResult } from "../../../../../nodes/_kit/handler-types";
import type { CareContext } from "../../../core/context";
import { chat } from "../clients";
import { describeModel, ModelAnswerError } from "../errors";
import { findModel, hasCapability } from "../registry";
import type { ModelEntry } from "../types";
import { hasMarker, parseJsonAnswer, saysNoNotification } from "./answer";
import { collectImages, type ImageConfig, type SelectedImage } from "./images";
import { buildPrompt, type PromptConfig } from "./prompt";

/** The step config (`ModelStepConfig` of the care services) as this layer reads it. */
export interface LlmStepConfig extends PromptConfig, ImageConfig {
  model_id: string;
  output_key: string;
  hallucination_marker?: string;
}

/** `signal` stops the model call (step timeout, run cancelled). */
export async function runLlmStep(ctx: CareContext, input: StepInput, stepConfig: ModelStepConfig, signal: AbortSignal): Promise<StepResult> {
  // The care services' shape is this layer's: the assignment fails to compile if they drift.
  const config: LlmStepConfig = stepConfig;
  const { settings } = ctx;
  const entry = findModel(settings, config.model_id);
  const guided = config.response_format === "json_schema" && entry.guided_decoding;
  const text = buildPrompt(config, input.pipeline_data, guided);
  const images = await imagesFor(ctx, input, config, entry);
  if (text === "" && images.length === 0) throw new ModelAnswerError(entry.id, `nothing to ask ${describeModel(entry)}: the prompt rendered empty`);

  const answer = await ask(ctx, signal, entry, config, {
    text,
    images,
    guided_json: guided ? (JSON.parse(config.response_json_schema ?? "{}") as Record<string, unknown>) : undefined,
  });
  const value = config.response_format === "text" ? answer : parsed(entry, answer, config.response_format);
  const data: Record<string, unknown> = { [config.output_key]: value };
  // A text answer may still be the JSON a legacy logic prompt asked for.
  const judged = config.response_format === "text" ? parseJsonAnswer(answer) : { ok: true as const, value };
  if (config.output_key === "logic_response" && judged.ok && saysNoNotification(judged.value)) data.notification_suppressed = true;
  // Images as the media store names them (relative to the data dir), not where this box keeps them.
  const shown = images.map((i) => path.relative(ctx.dataDir, i.path).split(path.sep).join("/"));
  return { data, trace: { model: `${entry.id} (${entry.model})`, prompt: text, images: shown, answer } };
}

async function imagesFor(ctx: CareContext, input: StepInput, config: LlmStepConfig, entry: ModelEntry): Promise<SelectedImage[]> {
  if (config.image_source === "none") return [];
  if (!hasCapability(entry, "vision")) {
    ctx.log.debug({ model_id: entry.id }, "llm_call: model lacks vision; images skipped");
    return [];
  }
  const { db, dataDir, settings } = ctx;
  return collectImages({ db, dataDir, settings, log: ctx.log, nowMs: ctx.clock.now(), timeZone: settings.app.timezone }, input.trigger.media_paths, config);
}

interface Question {
  text: string;
  images: SelectedImage[];
  guided_json?: Record<string, unknown>;
}

/** One call, repeated up to the model's max_retries while the answer carries the marker. */
async function ask(ctx: CareContext, signal: AbortSignal, entry: ModelEntry, config: LlmStepConfig, q: Question): Promise<string> {
  const images = q.images.map(({ mime, data }) => ({ mime, data }));
  for (let attempt = 0; ; attempt++) {
    ctx.log.debug({ model_id: entry.id, attempt, images: images.length, guided: q.guided_json !== undefined }, "llm_call: asking the model");
    const { text } = await chat({
      model: entry,
      messages: [{ role: "user", text: q.text, ...(images.length ? { images } : {}) }],
      max_tokens: entry.max_tokens,
      ...(q.guided_json ? { guided_json: q.guided_json } : {}),
      signal,
    });
    if (!hasMarker(text, config.hallucination_marker)) return text;
    if (attempt >= entry.max_retries) {
      throw new ModelAnswerError(
        entry.id,
        `${describeModel(entry)} answered with the hallucination marker '${config.hallucination_marker}' on all ${attempt + 1} attempts`,
      );
    }
    ctx.log.warn({ model_id: entry.id, attempt }, "llm_call: hallucination marker in the answer; asking again");
  }
}

function parsed(entry: ModelEntry, answer: string, format: "json_schema" | "json_free"): unknown {
  const json = parseJsonAnswer(answer);
  if (!json.ok) {
    const shown = answer.length > 200 ? `${answer.slice(0, 200)}…` : answer;
    throw new ModelAnswerError(entry.id, `${describeModel(entry)} did not answer with JSON (response_format ${format}): ${JSON.stringify(shown)}`);
  }
  return json.value;
}
