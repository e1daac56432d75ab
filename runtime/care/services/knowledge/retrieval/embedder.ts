/**
 * Embeds chunks in the background, `embedding.batch_size` at a time, with the model
 * `knowledge.embedding_model` names: every chunk without a vector of that model (new chunks,
 * and all of them once the model changes). A document is searchable lexically the moment it
 * is chunked; its vectors come when they come. A failing model is logged and tried again
 * later (30 s, doubling to 10 min), never at the cost of the document; a model that answers
 * with the wrong number of dimensions is logged and said (`embeddingState`), and nothing of
 * it is stored.
 */
import type { Knex } from "knex";
import type { PlatformContext } from "../../../../platform/context";
import { findModel, hasCapability } from "../../llm/registry";
import type { ModelEntry } from "../../llm/types";
import { chunksToEmbed, documentEmbeddedWith, storeEmbeddings } from "./chunks.store";
import { embedTexts } from "./embeddings.client";

export type EmbedderContext = Pick<PlatformContext, "db" | "clock" | "log" | "settings">;

export interface EmbeddingState {
  /** The `llm.models` id chunks are embedded with, or null (lexical search only). */
  model: string | null;
  /** `idle`: nothing to do; `working`; `failing`: the last batch failed (`error` says why). */
  state: "not_configured" | "idle" | "working" | "failing";
  error: string | null;
}

const MIN_RETRY_MS = 30_000;
const MAX_RETRY_MS = 10 * 60_000;

interface Embedder {
  kick(): void;
  state: EmbeddingState;
  idle(): Promise<void>;
}

const embedders = new WeakMap<Knex, Embedder>();

/** The embedding model entry, or null when none is configured or it cannot embed (said once in the log). */
export function embeddingModel(ctx: Pick<PlatformContext, "settings">): ModelEntry | null {
  const id = ctx.settings.knowledge.embedding_model;
  if (!id) return null;
  const entry = ctx.settings.llm.models.find((m) => m.id === id);
  return entry && hasCapability(entry, "embedding") ? entry : null;
}

export const embeddingState = (ctx: Pick<PlatformContext, "db" | "settings">): EmbeddingState =>
  embedders.get(ctx.db)?.state ?? { model: ctx.settings.knowledge.embedding_model, state: embeddingModel(ctx) ? "idle" : "not_configured", error: null };

/** Tells the running embedder there may be chunks to embed (no-op when none runs). */
export const kickEmbedder = (ctx: Pick<PlatformContext, "db">): void => embedders.get(ctx.db)?.kick();

/** Resolves once the embedder has nothing left to do or is waiting to retry (tests and the bench). */
export const embedderIdle = (ctx: Pick<PlatformContext, "db">): Promise<void> => embedders.get(ctx.db)?.idle() ?? Promise.resolve();

export interface EmbedderOptions {
  /**
   * Looks for chunks to embed this long after each pass, unasked. Several instances: chunks
   * made through another instance kick only that one's (idle) embedder, and one embeds for all.
   */
  pollMs?: number;
}

/**
 * Starts the embedder of this store; `onDocumentEmbedded` hears of each document whose chunks
 * all have vectors of the model. Returns its stop.
 */
export function startEmbedder(
  ctx: EmbedderContext,
  onDocumentEmbedded: (documentId: number, model: string) => Promise<void>,
  opts: EmbedderOptions = {},
): () => Promise<void> {
  // Read again on every pass: a changed setting (a reload, a restart) re-embeds with the new model.
  const warned = new Set<string>();
  const resolve = (): ModelEntry | null => {
    const id = ctx.settings.knowledge.embedding_model;
    if (!id) return null;
    try {
      const entry = findModel(ctx.settings, id);
      if (hasCapability(entry, "embedding")) return entry;
      if (!warned.has(id)) ctx.log.warn({ model: id }, "knowledge.embedding_model names a model without the 'embedding' capability: lexical search only");
    } catch {
      if (!warned.has(id)) ctx.log.warn({ model: id }, "knowledge.embedding_model is not in llm.models: lexical search only");
    }
    warned.add(id);
    return null;
  };
  let entry = resolve();
  const state: EmbeddingState = { model: entry?.id ?? null, state: entry ? "idle" : "not_configured", error: null };
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let retryMs = MIN_RETRY_MS;
  let cancelRetry: (() => void) | null = null;
  const abort = new AbortController();

  const pass = async (model: ModelEntry): Promise<void> => {
    const batch = Math.max(1, ctx.settings.embedding.batch_size);
    let after = 0;
    for (;;) {
      if (stopped) return;
      const chunks = await chunksToEmbed(ctx.db, model.id, batch, after);
      if (chunks.length === 0) return;
      state.state = "working";
      const vectors = await embedTexts(
        model,
        chunks.map((c) => c.text),
        ctx.settings.embedding.dim,
        abort.signal,
      );
      await storeEmbeddings(
        ctx.db,
        model.id,
        chunks.map((c, i) => ({ id: c.id, text: c.text, vector: vectors[i] })),
      );
      after = chunks[chunks.length - 1].id;
      for (const doc of new Set(chunks.map((c) => c.document_id))) {
        if (await documentEmbeddedWith(ctx.db, doc, model.id)) await onDocumentEmbedded(doc, model.id);
      }
    }
  };

  const run = (): void => {
    if (stopped) return;
    entry = resolve();
    state.model = entry?.id ?? null;
    if (!entry) {
      state.state = "not_configured";
      return;
    }
    if (running) {
      again = true;
      return;
    }
    const model = entry;
    running = (async () => {
      try {
        await pass(model);
        state.state = "idle";
        state.error = null;
        retryMs = MIN_RETRY_MS;
        if (opts.pollMs && !stopped) {
          cancelRetry?.();
          cancelRetry = ctx.clock.at(ctx.clock.now() + opts.pollMs, () => {
            cancelRetry = null;
            run();
          });
        }
      } catch (err) {
        if (stopped) return;
        state.state = "failing";
        state.error = err instanceof Error ? err.message : String(err);
        ctx.log.warn(
          { err, model: model.id, retry_in_s: retryMs / 1000 },
          "knowledge: embedding failed; the chunks stay searchable by words and are tried again later",
        );
        cancelRetry?.();
        cancelRetry = ctx.clock.at(ctx.clock.now() + retryMs, () => {
          cancelRetry = null;
          run();
        });
        retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
      } finally {
        running = null;
        if (again && !stopped) {
          again = false;
          run();
        }
      }
    })();
  };

  const embedder: Embedder = {
    kick: run,
    state,
    idle: async () => {
      while (running) await running;
    },
  };
  embedders.set(ctx.db, embedder);
  run();
  return async () => {
    stopped = true;
    abort.abort();
    cancelRetry?.();
    await running;
    if (embedders.get(ctx.db) === embedder) embedders.delete(ctx.db);
  };
}
