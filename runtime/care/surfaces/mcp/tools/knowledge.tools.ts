/**
 * `query_knowledge_base`: the senior (through the voice companion) or an agent asks what the
 * family wrote down; the answer comes only from approved documents, or says it does not know.
 * Its REST twin is reading the documents (`GET /api/v1/knowledge/documents`), which every
 * reading key may: asking is reading, and the question is logged like every other.
 */
import { z } from "zod";
import { defineTool, type ToolDef } from "../tool";
import { askRepository } from "../../../services/knowledge/ask";

export const KNOWLEDGE_TOOLS: readonly ToolDef[] = [
  defineTool({
    name: "query_knowledge_base",
    title: "Ask the family's knowledge",
    description:
      "Answers a question from what the family wrote down for the senior (how the heater works, who visits when, the doctor's advice). found is false when nothing written answers it: then say you don't know.",
    input: z.object({ query: z.string().trim().min(1).max(1000).describe("the question, in the senior's words") }),
    output: z.object({ answer: z.string(), source_document_ids: z.array(z.number().int()), found: z.boolean() }),
    twin: () => "GET /api/v1/knowledge/documents",
    run: async (t, a) => {
      const r = await askRepository(t.ctx, a.query, t.principal.name === "voice companion" ? "voice" : "mcp");
      return { answer: r.answer, source_document_ids: r.source_document_ids, found: r.found };
    },
  }),
];
