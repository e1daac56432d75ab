/**
 * Asking the knowledge repository, for every channel (the caregiver's page, MCP, the voice
 * companion): retrieval finds and answers, the documents module names the sources. Kept
 * here, above both, so neither imports the other's tables.
 */
import type { CareContext } from "../../core/context";
import { askKnowledge, type AskChannel, type AskResult } from "./retrieval";
import { documentTitles } from "./documents/document-titles";

export type { AskResult };

export const askRepository = (ctx: CareContext, query: string, channel: AskChannel, senior_id: string | null = null): Promise<AskResult> =>
  askKnowledge(ctx, { query, channel, senior_id }, (ids) => documentTitles(ctx, ids));
