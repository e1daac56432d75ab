/**
 * What the language-model fakes accept, as the real services check it: the request bodies of
 * OpenAI chat completions, embeddings and speech, and of Ollama's chat and embed. A body the
 * real service would refuse is refused by the fake too (400 with that service's error body), so
 * a client change that sends something a real server would turn away fails its tests.
 *
 * OpenAI refuses a top-level field it does not know ("Unrecognized request argument
 * supplied"), and so do these schemas; Ollama's Go server ignores unknown fields, and so do
 * its schemas (only the known fields' types and values are checked).
 */
import { z } from "zod";

/** A refusal as the fakes record it and answer it. */
export interface Refusal {
  path: string;
  body: unknown;
  /** What the service says, in its words. */
  message: string;
  /** The field at fault, as OpenAI names it (`messages[0].role`), or null. */
  param: string | null;
  /** OpenAI's error code (`missing_required_parameter`, `invalid_type`, ...), or null. */
  code: string | null;
}

const positiveInt = z.number().int().min(1);

// ---- OpenAI chat completions ------------------------------------------------------------------

const textPart = z.strictObject({ type: z.literal("text"), text: z.string() });
const imagePart = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({ url: z.string().min(1), detail: z.enum(["auto", "low", "high"]).optional() }),
});
const contentPart = z.discriminatedUnion("type", [textPart, imagePart]);

const chatMessage = z.strictObject({
  role: z.enum(["system", "user", "assistant", "tool", "developer"]),
  content: z.union([z.string(), z.array(contentPart).min(1)]),
  name: z.string().optional(),
  tool_call_id: z.string().optional(),
});

const responseFormat = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({ type: z.literal("json_object") }),
  z.strictObject({
    type: z.literal("json_schema"),
    json_schema: z.strictObject({
      name: z.string().min(1),
      schema: z.record(z.string(), z.unknown()),
      description: z.string().optional(),
      strict: z.boolean().optional(),
    }),
  }),
]);

const openAiChatFields = {
  model: z.string().min(1),
  messages: z.array(chatMessage).min(1),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: positiveInt.optional(),
  max_completion_tokens: positiveInt.optional(),
  n: positiveInt.optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  seed: z.number().int().optional(),
  response_format: responseFormat.optional(),
  stream: z.boolean().optional(),
  user: z.string().optional(),
};

/**
 * vLLM's own body fields (its guided decoding): careflow sends `guided_json` to a model whose
 * registry entry says `guided_decoding: true`, which is a vLLM server. OpenAI itself refuses them.
 * vLLM 0.12 dropped the `guided_*` fields for `structured_outputs` and, taking unknown fields,
 * ignores them without a word (vllm-project/vllm#29326): this dialect is vLLM before 0.12, and
 * takes `structured_outputs` too so a client that moves to it needs no change here.
 */
const vllmExtensions = {
  structured_outputs: z.looseObject({ json: z.union([z.record(z.string(), z.unknown()), z.string()]).optional() }).optional(),
  guided_json: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  guided_choice: z.array(z.string()).optional(),
  guided_regex: z.string().optional(),
  top_k: z.number().int().optional(),
  repetition_penalty: z.number().optional(),
};

/** Which server the chat fake stands in for: vLLM (OpenAI's fields plus its own) or OpenAI itself. */
export type OpenAiDialect = "vllm" | "openai";

export const openAiChatRequest = (dialect: OpenAiDialect) =>
  dialect === "openai" ? z.strictObject(openAiChatFields) : z.strictObject({ ...openAiChatFields, ...vllmExtensions });

export const openAiEmbeddingsRequest = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(2048)]),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: positiveInt.optional(),
  user: z.string().optional(),
});

// ---- OpenAI speech ----------------------------------------------------------------------------

/**
 * `POST /v1/audio/speech`. The household's neural engines speak this API with two fields of
 * their own that careflow's TTS service sends (docs/tts.md): `language` and `stream`.
 */
export const openAiSpeechRequest = z.strictObject({
  model: z.string().min(1),
  input: z.string().min(1).max(4096),
  voice: z.union([z.string().min(1), z.strictObject({ id: z.string().min(1) })]),
  instructions: z.string().max(4096).optional(),
  response_format: z.enum(["mp3", "opus", "aac", "flac", "wav", "pcm"]).optional(),
  speed: z.number().min(0.25).max(4).optional(),
  stream_format: z.enum(["sse", "audio"]).optional(),
  language: z.string().min(1).optional(),
  stream: z.boolean().optional(),
});

// ---- Ollama -------------------------------------------------------------------------------------

/** Go decodes `[]byte` from base64 and refuses anything else. */
const base64Image = z.string().regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, "illegal base64 data");

const ollamaMessage = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  images: z.array(base64Image).optional(),
});

const ollamaOptions = z.looseObject({
  num_predict: z.number().int().optional(),
  num_ctx: z.number().int().optional(),
  temperature: z.number().optional(),
  seed: z.number().int().optional(),
});

export const ollamaChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ollamaMessage),
  format: z.union([z.literal("json"), z.literal(""), z.record(z.string(), z.unknown())]).optional(),
  options: ollamaOptions.optional(),
  stream: z.boolean().optional(),
  keep_alive: z.union([z.string(), z.number()]).optional(),
  tools: z.array(z.record(z.string(), z.unknown())).optional(),
  think: z.union([z.boolean(), z.enum(["low", "medium", "high"])]).optional(),
});

export const ollamaEmbedRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string())]),
  truncate: z.boolean().optional(),
  options: ollamaOptions.optional(),
  keep_alive: z.union([z.string(), z.number()]).optional(),
  dimensions: positiveInt.optional(),
});

// ---- refusals in the services' words ------------------------------------------------------------

/** `messages[0].content[1].image_url.url`, as OpenAI names a field. */
export function paramName(path: readonly PropertyKey[]): string {
  return path.map((k, i) => (typeof k === "number" ? `[${k}]` : `${i ? "." : ""}${String(k)}`)).join("");
}

const typeName = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`);

/** The value at a path of the body (for "but got ... instead"). */
function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = body;
  for (const k of path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * The first issue, looking into a union (a message's `content` is a string or a list of
 * parts): when the value had one form's type, that form's own problem is the one to tell.
 */
function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  let issue = issues[0];
  while (issue.code === "invalid_union" && issue.errors.length) {
    const typed = issue.errors.find((branch) => branch.length && !(branch[0].code === "invalid_type" && branch[0].path.length === 0));
    if (!typed) break;
    issue = { ...typed[0], path: [...issue.path, ...typed[0].path] };
  }
  return issue;
}

/** The first problem of a body, worded as OpenAI words it (message, param and code of its error body). */
export function openAiProblem(error: z.ZodError, body: unknown): Omit<Refusal, "path" | "body"> {
  const issue = firstIssue(error.issues);
  const param = paramName(issue.path);
  const got = valueAt(body, issue.path);
  if (got === undefined && (issue.code === "invalid_type" || issue.code === "invalid_union"))
    return { message: `Missing required parameter: '${param}'.`, param, code: "missing_required_parameter" };
  switch (issue.code) {
    case "unrecognized_keys":
      if (issue.path.length === 0) return { message: `Unrecognized request argument supplied: ${issue.keys.join(", ")}`, param: null, code: null };
      return { message: `Unknown parameter: '${param}.${issue.keys[0]}'.`, param: `${param}.${issue.keys[0]}`, code: "unknown_parameter" };
    case "invalid_type":
      return { message: `Invalid type for '${param}': expected ${issue.expected}, but got ${typeName(got)} instead.`, param, code: "invalid_type" };
    case "too_small":
      if (issue.origin === "array")
        return {
          message: `Invalid '${param}': empty array. Expected an array with minimum length ${String(issue.minimum)}, but got an empty array instead.`,
          param,
          code: "empty_array",
        };
      if (issue.origin === "string")
        return {
          message: `Invalid '${param}': string too short. Expected a string with minimum length ${String(issue.minimum)}, but got a string with length ${String(got).length} instead.`,
          param,
          code: "string_below_min_length",
        };
      return {
        message: `Invalid '${param}': value below minimum. Expected a value >= ${String(issue.minimum)}, but got ${String(got)} instead.`,
        param,
        code: "decimal_below_min_value",
      };
    case "too_big":
      if (issue.origin === "string")
        return {
          message: `Invalid '${param}': string too long. Expected a string with maximum length ${String(issue.maximum)}, but got a string with length ${String(got).length} instead.`,
          param,
          code: "string_above_max_length",
        };
      if (issue.origin === "array")
        return {
          message: `Invalid '${param}': array too long. Expected an array with maximum length ${String(issue.maximum)}.`,
          param,
          code: "array_above_max_length",
        };
      return {
        message: `Invalid '${param}': value above maximum. Expected a value <= ${String(issue.maximum)}, but got ${String(got)} instead.`,
        param,
        code: "decimal_above_max_value",
      };
    case "invalid_value":
      return {
        message: `Invalid value: '${String(got)}'. Supported values are: ${issue.values.map((v) => `'${String(v)}'`).join(", ")}.`,
        param,
        code: "invalid_value",
      };
    case "invalid_union": {
      // A discriminated union names the tag it wanted; a plain one, the types it would take.
      if (issue.discriminator) {
        // The issue's path already ends at the tag (`messages[0].content[0].type`).
        return { message: `Invalid value: '${String(got)}'. It is not one of the types this field takes.`, param, code: "invalid_value" };
      }
      return { message: `Invalid type for '${param}': got ${typeName(got)}, which none of its accepted forms is.`, param, code: "invalid_type" };
    }
    default:
      return { message: `Invalid '${param}': ${issue.message}.`, param, code: "invalid_value" };
  }
}

/** The first problem of a body, worded as Ollama words it (the text of `{"error": ...}`). */
export function ollamaProblem(error: z.ZodError, body: unknown): string {
  const issue = firstIssue(error.issues);
  const param = paramName(issue.path);
  const got = valueAt(body, issue.path);
  if (param === "model" && (got === undefined || got === "")) return "model is required";
  if (issue.code === "invalid_type") return `json: cannot unmarshal ${typeName(got)} into Go struct field .${param} of type ${issue.expected}`;
  if (issue.code === "invalid_format" || (issue.code === "custom" && /base64/.test(issue.message))) return `illegal base64 data in ${param}`;
  if (param === "format" || param.startsWith("format")) return `invalid format: expected "json" or a valid JSON schema`;
  return `invalid ${param}: ${issue.message}`;
}
