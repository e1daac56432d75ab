/** The `knowledge` and `embedding` settings sections: the knowledge repository's limits and the embedding model it must match. */
import { z } from "zod";

// The knowledge repository's limits and the embedding model it must match.
export const knowledgeSettings = z
  .object({
    chunk_size_tokens: z.number().int().positive().default(400),
    chunk_overlap_tokens: z.number().int().min(0).default(60),
    retrieval_top_k: z.number().int().positive().default(8),
    min_similarity: z.number().min(0).max(1).default(0.55),
    max_upload_bytes: z.number().int().positive().default(15728640),
    max_pixels: z.number().int().positive().default(40000000),
    // `llm.models` ids: who writes an answer from the retrieved passages (none: the best
    // passage is the answer), who drafts cards and quizzes (none: suggest answers 409), and
    // who embeds chunks (none: lexical search only).
    answer_model: z.string().min(1).nullable().default(null),
    authoring_model: z.string().min(1).nullable().default(null),
    embedding_model: z.string().min(1).nullable().default(null),
    // Layouts added to the shipped ones, or replacing one by id; checked at start
    // (runtime/care/services/knowledge/layouts, docs/knowledge-cards.md).
    layouts: z.array(z.record(z.string(), z.unknown())).default([]),
    // The default voice instructions per delivery type (empty: the shipped ones).
    voice_defaults: z
      .object({
        interactive_prompt_default: z.string().optional(),
        info_card_default: z.string().optional(),
        quiz_default: z.string().optional(),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});

export const embeddingSettings = z
  .object({
    dim: z.number().int().positive().default(768),
    max_seq_len: z.number().int().positive().default(2048),
    batch_size: z.number().int().positive().default(16),
  })
  .strict()
  .prefault({});
