/** Interactive prompts and their answers (REST, `/ws`, MCP). See docs/interactive.md. */
export { interactiveResponseSchema, recordPrompt, respond, watchPromptTimeouts, type InteractiveResponse, type RespondResult } from "./interactive.service";
export { registerInteractiveHandlers } from "./interactive.ws";
export { interactiveRouter } from "./interactive.router";
