/**
 * The lexical ranking on both stores: the chunk with more of the question's words comes first,
 * and the search follows a document's chunks through approval, a text change, archiving and
 * deletion. On PostgreSQL the score is the one `ts_rank` gives for the OR of the question's
 * words (the search reads the table of terms triggers keep, migration 029), and that table holds
 * the words of searchable chunks only.
 */
import assert from "node:assert/strict";
import { testDialect } from "../../../support/test-db";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { makeDocument } from "./knowledge-support";

const DOCS = "/api/v1/knowledge/documents";

const ask = async (t: TestApp, query: string): Promise<string[]> => {
  const res = await t.post("/api/v1/knowledge/query", { query });
  assert.equal(res.status, 200, res.text);
  return res.body.passages.map((p: { text: string }) => p.text);
};

describe("knowledge lexical ranking", function () {
  this.timeout(30_000);
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ settings: { knowledge: { chunk_size_tokens: 30, chunk_overlap_tokens: 0 } } });
  });
  after(() => t?.close());

  it("puts the passage with more of the question's words first", async () => {
    for (const text of [
      "The kettle whistles when the water boils.",
      "The blue kettle is in the kitchen cupboard, left side.",
      "The blue car is parked outside.",
    ])
      await makeDocument(t, text.slice(0, 20), text, "", true);
    const passages = await ask(t, "where is the blue kettle");
    assert.equal(passages[0], "The blue kettle is in the kitchen cupboard, left side.");
    assert.equal(passages.length, 3, "each word on its own finds a passage");
  });

  it("follows a document through approval, a text change, archiving and deletion", async () => {
    const doc = await makeDocument(t, "Keys", "The spare key is under the geranium pot.", "", true);
    assert.deepEqual(await ask(t, "geranium"), ["The spare key is under the geranium pot."]);

    await t.request("PATCH", `${DOCS}/${doc.id}`, { body: { source_text: "The spare key is with the neighbour, Mrs. Huber." } });
    assert.deepEqual(await ask(t, "geranium"), [], "back in review: not searched");
    assert.deepEqual(await ask(t, "huber"), []);
    await t.post(`${DOCS}/${doc.id}/approve`);
    assert.deepEqual(await ask(t, "geranium"), [], "the old text is gone");
    assert.deepEqual(await ask(t, "huber"), ["The spare key is with the neighbour, Mrs. Huber."]);

    await t.post(`${DOCS}/${doc.id}/archive`);
    assert.deepEqual(await ask(t, "huber"), []);
    await t.request("DELETE", `${DOCS}/${doc.id}`);
    assert.deepEqual(await ask(t, "huber"), []);
    if (testDialect() === "postgres") {
      const rows = await t.app.ctx.db("knowledge_chunk_terms").where({ document_id: doc.id }).count({ n: "*" });
      assert.equal(Number(rows[0].n), 0, "no terms left of a deleted document");
    }
  });

  it("on PostgreSQL, scores as ts_rank does and keeps the words of searchable chunks only", async function () {
    if (testDialect() !== "postgres") this.skip();
    const db = t.app.ctx.db;
    const text = [
      "Pills pills pills: the morning pills are in the blue box, the evening pills in the red box.",
      "The red box is on the shelf. The blue box is in the drawer by the bed.",
      "Water the plants on Sunday; the watering can is by the door.",
      "Morning and evening, the door stays locked.",
    ].join("\n\n");
    const doc = await makeDocument(t, "Pills", text, "", true);
    const draft = await makeDocument(t, "Draft", "Pills for the cat are in the garage.");

    for (const question of ["morning pills red box", "door", "pills pills evening", "watering can sunday blue"]) {
      const words = question.split(" ");
      const orQuery = words.map(() => "plainto_tsquery('careflow_english', ?)").join(" || ");
      const expected = (
        await db.raw(
          `select id, ts_rank(tsv, q) as score from knowledge_chunks, (select ${orQuery} as q) x
            where searchable and tsv @@ q order by score desc, id`,
          words,
        )
      ).rows as Array<{ id: number; score: number }>;
      const got = (await db.raw("select id, score from careflow_knowledge_search(?, 100)", [question])).rows as Array<{ id: number; score: number }>;
      assert.deepEqual(got.map((r) => r.id).sort(), expected.map((r) => r.id).sort(), question);
      for (const r of got) {
        const e = expected.find((x) => x.id === r.id)!;
        assert.ok(Math.abs(Number(r.score) - Number(e.score)) < 1e-6, `${question}: chunk ${r.id} ${r.score} vs ts_rank ${e.score}`);
      }
      for (let i = 1; i < got.length; i++) assert.ok(Number(got[i - 1].score) >= Number(got[i].score), "best first");
    }

    const lexemes = async (documentId: number): Promise<number> =>
      Number((await db("knowledge_chunk_terms").where({ document_id: documentId }).count({ n: "*" }))[0].n);
    const distinct = Number((await db.raw("select coalesce(sum(length(tsv)), 0) as n from knowledge_chunks where document_id = ?", [doc.id])).rows[0].n);
    assert.equal(await lexemes(doc.id), distinct, "one row a word of each chunk");
    assert.equal(await lexemes(draft.id), 0, "a draft's words are not searched");
    await t.post(`${DOCS}/${doc.id}/archive`);
    assert.equal(await lexemes(doc.id), 0, "archived: gone");
  });
});
