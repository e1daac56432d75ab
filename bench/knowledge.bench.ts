/**
 * The knowledge search (`npm run bench -- knowledge`), on SQLite and, when
 * `CAREFLOW_TEST_DATABASE_URL` names a PostgreSQL server, on PostgreSQL too:
 * 1. retrieval over 10,000 chunks of 100 approved documents (about 1,500 characters each,
 *    words drawn by Zipf's law from a 20,000-word vocabulary, its 100 most frequent ranks left
 *    out as the stop words the search drops: the commonest word is in about one chunk in
 *    five, as in English prose), lexical only: 300 questions of 3–6 such words, p99 (target
 *    under 20 ms);
 * 2. the same with a 768-dimension vector of every chunk, scored as the mean of words and cosine: p99 of the search
 *    given the question's vector (target under 20 ms); embedding the question is shown apart
 *    (here a fake model on this machine, one local HTTP round trip: a real model adds its own
 *    time), as is the first question, which builds the in-process index ("cold");
 * 3. ingest of a 150,000-character document (about 50 pages) through the API until a question
 *    finds it: create, approve, ask (target under 2 s).
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { approveDocument, createDocument } from "../runtime/care/services/knowledge/documents/documents.service";
import { searchChunks, searchWith } from "../runtime/care/services/knowledge/retrieval/search";
import { storeEmbeddings } from "../runtime/care/services/knowledge/retrieval/chunks.store";
import { embedTexts } from "../runtime/care/services/knowledge/retrieval/embeddings.client";
import { nearestChunks } from "../runtime/care/services/knowledge/retrieval/vector-search";
import { startFakeOpenAiChatServer } from "../test/fakes/openai-chat-server";
import { prng } from "../test/support/prng";
import { startTestApp } from "../test/support/test-app";
import { nowMs, percentile, report, type BenchRow } from "./support";

const DOCS = Number(process.env.BENCH_KNOWLEDGE_DOCS ?? 100);
const CHUNKS_PER_DOC = 100;
const QUESTIONS = Number(process.env.BENCH_KNOWLEDGE_QUESTIONS ?? 300);
const DIM = 768;

const rand = prng(20261127);
const VOCAB = Array.from({ length: 20_100 }, () =>
  randomBytes(4)
    .toString("hex")
    .replace(/[0-9]/g, (d) => "ghijklmnop"[Number(d)]),
);
// Rank r with probability ∝ 1/r, for r from 100 to 20,100 (r = 100 · 201^u).
const word = (): string => VOCAB[Math.min(VOCAB.length - 1, Math.floor(100 * Math.pow(201, rand())))];
const sentence = (): string => {
  const w = Array.from({ length: 8 + Math.floor(rand() * 10) }, word);
  return w[0][0].toUpperCase() + w.join(" ").slice(1) + ".";
};
/** A paragraph of about `chars` characters. */
const paragraph = (chars: number): string => {
  let p = "";
  while (p.length < chars - 120) p += (p ? " " : "") + sentence();
  return p;
};
const question = (): string => Array.from({ length: 3 + Math.floor(rand() * 4) }, word).join(" ");

function randomUnitVector(): Float32Array {
  const v = new Float32Array(DIM);
  let s = 0;
  for (let i = 0; i < DIM; i++) {
    v[i] = rand() * 2 - 1;
    s += v[i] * v[i];
  }
  const n = Math.sqrt(s);
  for (let i = 0; i < DIM; i++) v[i] /= n;
  return v;
}

async function runOn(store: "sqlite" | "postgres"): Promise<{ rows: BenchRow[]; figures: Record<string, number> }> {
  const fake = await startFakeOpenAiChatServer();
  fake.embeddings.dim = DIM;
  const t = await startTestApp({
    settings: {
      llm: { models: [{ id: "bench-embed", api_type: "openai", base_url: fake.baseUrl, model: "fake-embed", capabilities: ["embedding"] }] },
      knowledge: { embedding_model: null, min_similarity: 0 },
      embedding: { dim: DIM },
    },
  });
  const ctx = t.app.ctx;
  try {
    // 1. Seed: 100 approved documents of 100 chunks.
    const seeded = nowMs();
    for (let d = 0; d < DOCS; d++) {
      const text = Array.from({ length: CHUNKS_PER_DOC }, () => paragraph(1500)).join("\n\n");
      const doc = await createDocument(ctx, "bench", { title: `Document ${d}`, source_text: text }, []);
      await approveDocument(ctx, doc.id, "bench");
    }
    const seedSeconds = (nowMs() - seeded) / 1000;
    const chunkRows: Array<{ id: number; text: string }> = await ctx.db("knowledge_chunks").select("id", "text");

    // The box is shared: the load average next to the timings says how busy it was.
    const loadBefore = os.loadavg()[0];
    const questions = Array.from({ length: QUESTIONS }, question);
    for (const q of questions.slice(0, 20)) await searchChunks(ctx, q); // warm-up
    const lexical: number[] = [];
    let found = 0;
    for (const q of questions) {
      const t0 = nowMs();
      const r = await searchChunks(ctx, q);
      lexical.push(nowMs() - t0);
      if (r.passages.length) found++;
    }

    // 2. Hybrid: a vector for every chunk, then the question embedded by the fake model.
    for (let i = 0; i < chunkRows.length; i += 500) {
      await storeEmbeddings(
        ctx.db,
        "bench-embed",
        chunkRows.slice(i, i + 500).map((c) => ({ id: c.id, text: c.text, vector: randomUnitVector() })),
      );
    }
    ctx.settings.knowledge.embedding_model = "bench-embed";
    const c0 = nowMs();
    const first = await searchChunks(ctx, questions[0]);
    const cold = nowMs() - c0;
    if (first.mode !== "hybrid") throw new Error("the hybrid search did not search vectors");
    // The search's own cost: the question's vector is made first (a real model takes its own
    // time for it, measured below with the fake one as "embedding the question").
    const model = ctx.settings.llm.models[0];
    const topK = ctx.settings.knowledge.retrieval_top_k;
    const vectors = new Map<string, Float32Array>();
    for (const q of questions) vectors.set(q, (await embedTexts(model, [q], DIM))[0]);
    for (const q of questions.slice(0, 20)) await searchWith(ctx, q, { model: "bench-embed", vector: vectors.get(q)! }, topK);
    const hybrid: number[] = [];
    for (const q of questions) {
      const t0 = nowMs();
      await searchWith(ctx, q, { model: "bench-embed", vector: vectors.get(q)! }, topK);
      hybrid.push(nowMs() - t0);
    }
    // Its parts: embedding the question (the fake model over local HTTP), the vector side alone.
    const embed: number[] = [];
    const vectorOnly: number[] = [];
    for (const q of questions.slice(0, 100)) {
      const t0 = nowMs();
      const [v] = await embedTexts(model, [q], DIM);
      const t1 = nowMs();
      await nearestChunks(ctx.db, ctx.dialect, "bench-embed", v, topK * 2);
      vectorOnly.push(nowMs() - t1);
      embed.push(t1 - t0);
    }
    ctx.settings.knowledge.embedding_model = null;

    // 3. Ingest of a 150,000-character document through the API, until a question finds it.
    const marker = "zebrafinchquartz";
    const big = Array.from({ length: 100 }, (_, i) => paragraph(1500) + (i === 77 ? ` The ${marker} is in drawer seven.` : "")).join("\n\n");
    const i0 = nowMs();
    const created = await t.post("/api/v1/knowledge/documents", { title: "Fifty pages", source_text: big });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    await t.post(`/api/v1/knowledge/documents/${created.body.id}/approve`);
    const asked = await t.post("/api/v1/knowledge/query", { query: `where is the ${marker}` });
    const ingest = nowMs() - i0;
    if (!asked.body.found || !String(asked.body.answer).includes(marker)) throw new Error("the ingested document was not found");

    const p = (v: number[], q: number) => Math.round(percentile(v, q) * 100) / 100;
    const load = `${loadBefore.toFixed(2)} / ${os.loadavg()[0].toFixed(2)}`;
    const rows: BenchRow[] = [
      { measure: `${store}: load average (1 min) before the questions / after the ingest`, value: load, unit: "" },
      { measure: `${store}: seed ${chunkRows.length} chunks (${DOCS} documents, chunk + approve)`, value: seedSeconds, unit: "s" },
      { measure: `${store}: lexical p50`, value: p(lexical, 50), unit: "ms" },
      { measure: `${store}: lexical p99`, value: p(lexical, 99), unit: "ms", target: "< 20", ok: percentile(lexical, 99) < 20 },
      { measure: `${store}: lexical questions with a passage`, value: found, unit: `of ${QUESTIONS}` },
      { measure: `${store}: hybrid (768 dims) cold first question`, value: Math.round(cold * 100) / 100, unit: "ms" },
      { measure: `${store}: hybrid p50`, value: p(hybrid, 50), unit: "ms" },
      { measure: `${store}: hybrid p99`, value: p(hybrid, 99), unit: "ms", target: "< 20", ok: percentile(hybrid, 99) < 20 },
      { measure: `${store}:   of which embedding the question, p50`, value: p(embed, 50), unit: "ms" },
      { measure: `${store}:   of which the vector side, p50 / p99`, value: `${p(vectorOnly, 50)} / ${p(vectorOnly, 99)}`, unit: "ms" },
      { measure: `${store}: ingest 150,000 characters until found`, value: Math.round(ingest), unit: "ms", target: "< 2000", ok: ingest < 2000 },
    ];
    return {
      rows,
      figures: {
        [`${store}_chunks`]: chunkRows.length,
        [`${store}_load_before`]: Math.round(loadBefore * 100) / 100,
        [`${store}_lexical_p50_ms`]: p(lexical, 50),
        [`${store}_lexical_p99_ms`]: p(lexical, 99),
        [`${store}_hybrid_cold_ms`]: Math.round(cold * 100) / 100,
        [`${store}_hybrid_p50_ms`]: p(hybrid, 50),
        [`${store}_hybrid_p99_ms`]: p(hybrid, 99),
        [`${store}_embed_question_p50_ms`]: p(embed, 50),
        [`${store}_vector_side_p99_ms`]: p(vectorOnly, 99),
        [`${store}_ingest_ms`]: Math.round(ingest),
      },
    };
  } finally {
    await t.close();
    await fake.close();
  }
}

async function main(): Promise<void> {
  const pg = process.env.CAREFLOW_TEST_DATABASE_URL;
  delete process.env.CAREFLOW_TEST_DATABASE_URL;
  const results = [await runOn("sqlite")];
  if (pg) {
    process.env.CAREFLOW_TEST_DATABASE_URL = pg;
    results.push(await runOn("postgres"));
  }
  report(
    "knowledge",
    results.flatMap((r) => r.rows),
    Object.assign({}, ...results.map((r) => r.figures)),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
