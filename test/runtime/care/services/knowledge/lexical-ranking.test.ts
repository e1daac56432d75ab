/**
 * The lexical ranking on both stores: the chunk with more of the question's words comes first,
 * and the search follows a document's chunks through approval, a text change, archiving and
 * deletion. On PostgreSQL the score is the one `ts_rank` gives for the OR of the question's
 * words (the search reads the table of terms triggers keep, migration 029), and that table holds
 * the words of searchable chunks only.
 */
import assert from "node:assert/strict";
import { testDialect } from "../../../../support/test-db";
import { startTestApp, type TestApp } from "../../../../support/test-app";
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

// One passage a paragraph (chunks of 30 tokens): several name Leo, one says how old he is.
const FAMILY_NOTES = [
  "Anna is your daughter. She visits every Sunday afternoon with the children.",
  "Leo is five. He is Anna's younger son and goes to kindergarten.",
  "Leo loves the garden. Leo and Mia water the roses with Leo's little green can.",
  "Mia is eight and plays the piano. Her school is next to the church.",
  "Tom is your son. He lives in Hamburg and calls on Friday evenings.",
  "Leo's teacher is Mrs. Berger; Leo draws pictures of the cat for you.",
  "Your neighbour is called Mrs. Huber. She brings the newspaper every morning.",
  "The cat is called Minka. She sleeps on the sofa.",
  "Dr. Weber is your doctor. His practice is on Bahnhofstrasse.",
].join("\n\n");

describe("knowledge ranking: everyday family questions, by words alone", function () {
  this.timeout(30_000);
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ settings: { knowledge: { chunk_size_tokens: 30, chunk_overlap_tokens: 0 } } });
    await makeDocument(t, "The family", FAMILY_NOTES, "family", true);
    await makeDocument(t, "The heater", "The heater's red button switches it on. Leo must not touch it.", "home", true);
  });
  after(() => t?.close());

  const cases: Array<[string, RegExp]> = [
    ["How old is Leo?", /^Leo is five\./],
    ["how old's Leo", /^Leo is five\./],
    ["How old is Mia?", /^Mia is eight/],
    ["When does Anna visit?", /^Anna is your daughter/],
    ["When does Tom call?", /^Tom is your son/],
    ["What is the cat's name?", /^The cat is called Minka/],
    ["Who is my neighbour?", /^Your neighbour is called Mrs\. Huber/],
    ["Who brings the newspaper?", /^Your neighbour is called Mrs\. Huber/],
    ["What is the name of my doctor?", /Dr\. Weber is your doctor/],
    ["Where does Tom live?", /^Tom is your son/],
  ];
  for (const [question, first] of cases)
    it(`ranks the passage that answers "${question}" first`, async () => {
      const res = await t.post("/api/v1/knowledge/query", { query: question });
      assert.equal(res.status, 200, res.text);
      const passages = res.body.passages as Array<{ text: string; score: number }>;
      assert.match(passages[0]?.text ?? "", first, JSON.stringify(passages.map((p) => [p.score.toFixed(3), p.text])));
      assert.equal(res.body.answer, passages[0].text, "without an answer model the best passage is the answer");
    });

  it("gives every passage a real score from 0 to 1, best first, the first well above zero", async () => {
    const res = await t.post("/api/v1/knowledge/query", { query: "How old is Leo?" });
    const scores = (res.body.passages as Array<{ score: number }>).map((p) => p.score);
    assert.ok(scores.length >= 3, "every passage naming Leo is found");
    assert.ok(scores[0] >= 0.3 && scores[0] <= 1, `first ${scores[0]}`);
    for (const s of scores) assert.ok(s > 0.001 && s <= 1, `each reads more than 0.000: ${scores.join(", ")}`);
    for (let i = 1; i < scores.length; i++) assert.ok(scores[i - 1] >= scores[i], "best first");
    const all = await t.post("/api/v1/knowledge/query", { query: "Leo Mia cat" });
    assert.ok(all.body.passages[0].score > res.body.passages[1].score, "a passage holding more of the question's words scores higher");
  });
});
