/** Language and vision models: the `llm.models` registry and one chat call over both api types. */
export { chat } from "./clients";
export { describeModel, ModelAnswerError, ModelServerError, UnknownModelError } from "./errors";
export { findModel, hasCapability, listModels, type PublicModelEntry } from "./registry";
export type { ChatImage, ChatMessage, ChatRequest, ChatResult, ModelEntry } from "./types";
