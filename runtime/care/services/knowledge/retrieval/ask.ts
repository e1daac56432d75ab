/**
 * Answering a question from the repository: the top `knowledge.retrieval_top_k` passages,
 * then, with `knowledge.answer_model`, a short answer the model writes only from them (or
 * "I don't have that information"); without a model, or when it fails, the best passage is
 * the answer. Every question is logged in `knowledge_queries` with how it was answered, the
 * time it took, the channel and the chunks used.
 */
import { performance } from "node:perf_hooks";
import type { PlatformContext } from "../../../../platform/context";
import { isoAt } from "../../../../platform/core/clock";
import { chat } from "../../llm/clients";
import { findModel } from "../../llm/registry";
import { insertQuery, type AnsweredVia } from "./queries.store";
import { searchChunks } from "./search";

export type AskContext = Pick<PlatformContext, "db" | "dialect" | "settings" | "log" | "clock">;

export const NO_INFORMATION = "I don't have that information.";

export type AskChannel = "rest" | "mcp" | "voice" | "editor";

export interface AskInput {
  query: string;
  channel: AskChannel;
  senior_id?: string | null;
}

export interface AnswerPassage {
  chunk_id: number;
  document_id: number;
  document_title: string;
  text: string;
  score: number;
}

export interface AskResult {
  answer: string;
  found: boolean;
  answered_via: AnsweredVia;
  source_document_ids: number[];
  passages: AnswerPassage[];
}

/** The titles of documents by id (the documents module answers it; retrieval never reads that table). */
export type DocumentTitles = (ids: readonly number[]) => Promise<Map<number, string>>;

const SYSTEM = [
  "You answer an older person's question for their family's care assistant.",
  "Use ONLY the passages given. Answer in one to three short, plain sentences, warmly and directly.",
  `If the passages do not contain the answer, reply exactly: ${NO_INFORMATION}`,
].join(" ");

const saysNoInformation = (text: string): boolean => /i don['’]t have (that|this) information/i.test(text);

async function modelAnswer(ctx: AskContext, question: string, passages: readonly AnswerPassage[]): Promise<string | null> {
  const id = ctx.settings.knowledge.answer_model;
  if (!id) return null;
  try {
    const model = findModel(ctx.settings, id);
    const context = passages.map((p, i) => `[${i + 1}] (${p.document_title})\n${p.text}`).join("\n\n");
    const { text } = await chat({
      model,
      max_tokens: Math.min(model.max_tokens, 300),
      messages: [
        { role: "system", text: SYSTEM },
        { role: "user", text: `Passages:\n${context}\n\nQuestion: ${question}` },
      ],
    });
    const answer = text.trim();
    return answer || null;
  } catch (err) {
    ctx.log.warn({ err, model: id }, "knowledge: the answer model failed; answering with the best passage");
    return null;
  }
}

export async function askKnowledge(ctx: AskContext, input: AskInput, titles: DocumentTitles): Promise<AskResult> {
  const started = performance.now();
  const { passages: found } = await searchChunks(ctx, input.query);
  const names = await titles([...new Set(found.map((p) => p.document_id))]);
  const passages: AnswerPassage[] = found.map((p) => ({
    chunk_id: p.chunk_id,
    document_id: p.document_id,
    document_title: names.get(p.document_id) ?? "",
    text: p.text,
    score: p.score,
  }));
  let answer = NO_INFORMATION;
  let answered_via: AnsweredVia = "none";
  let isFound = false;
  if (passages.length > 0) {
    const written = await modelAnswer(ctx, input.query, passages);
    if (written !== null) {
      answered_via = "model";
      isFound = !saysNoInformation(written);
      answer = isFound ? written : NO_INFORMATION;
    } else {
      answered_via = "passage";
      isFound = true;
      answer = passages[0].text;
    }
  }
  const source_document_ids = isFound ? [...new Set(passages.map((p) => p.document_id))] : [];
  const top = found.map((p) => p.similarity).filter((s): s is number => s !== null);
  await insertQuery(ctx.db, {
    asked_at: isoAt(ctx.clock.now()),
    senior_id: input.senior_id ?? null,
    query_text: input.query,
    answer_text: answer,
    source_document_ids,
    source_chunk_ids: passages.map((p) => p.chunk_id),
    top_similarity: top.length ? Math.max(...top) : null,
    answered_via,
    channel: input.channel,
    latency_ms: Math.round(performance.now() - started),
  });
  return { answer, found: isFound, answered_via, source_document_ids, passages };
}
