/**
 * The vector side past the point where every chunk is scored exactly: the binary-quantized
 * scan must keep the true nearest chunks among its candidates, on the store the suite runs on.
 */
import assert from "node:assert/strict";
import { replaceChunks, storeEmbeddings } from "../../../../../runtime/care/services/knowledge/retrieval/chunks.store";
import { nearestChunks } from "../../../../../runtime/care/services/knowledge/retrieval/vector-search";
import { prng } from "../../../../support/prng";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { makeDocument } from "./knowledge-support";

const DIM = 96;
const N = 1000;

describe("knowledge vector search (binary scan, exact rescoring)", function () {
  this.timeout(60_000);
  let t: TestApp;
  const rand = prng(7);
  const unit = (v: Float32Array): Float32Array => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const randomVector = () => unit(Float32Array.from({ length: DIM }, () => rand() * 2 - 1));
  const vectors = new Map<number, Float32Array>();

  before(async () => {
    t = await startTestApp();
    const doc = await makeDocument(t, "Many", "placeholder");
    const db = t.app.ctx.db;
    await replaceChunks(
      db,
      doc.id,
      Array.from({ length: N }, (_, i) => ({ text: `chunk ${i}`, char_start: i, char_end: i + 1, token_count: 1 })),
      true,
    );
    const rows: Array<{ id: number; text: string }> = await db("knowledge_chunks").where({ document_id: doc.id }).select("id", "text");
    const batch = rows.map((r) => ({ id: Number(r.id), text: r.text, vector: randomVector() }));
    for (const b of batch) vectors.set(b.id, b.vector);
    await storeEmbeddings(db, "m", batch);
  });
  after(() => t?.close());

  it("finds the chunk a question is nearest to, and the exact top five, among 1000", async () => {
    const ctx = t.app.ctx;
    let exactTop = 0;
    for (const [id, v] of [...vectors].slice(0, 20)) {
      const noisy = unit(v.map((x) => x + (rand() - 0.5) * 0.05));
      const hits = await nearestChunks(ctx.db, ctx.dialect, "m", noisy, 5);
      assert.equal(hits[0].id, id);
      assert.ok(hits[0].score > 0.95);
      const exact = [...vectors]
        .map(([cid, w]) => ({ cid, s: w.reduce((acc, x, i) => acc + x * noisy[i], 0) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 5)
        .map((x) => x.cid);
      exactTop += hits.filter((h) => exact.includes(h.id)).length;
    }
    assert.ok(exactTop >= 90, `recall of the exact top five: ${exactTop} of 100`);
  });
});
