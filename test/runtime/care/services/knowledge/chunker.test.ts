/** Chunking: sizes, overlap, and cuts where a reader would put them (paragraph, line, sentence, word). */
import assert from "node:assert/strict";
import { chunkText } from "../../../../../runtime/care/services/knowledge/retrieval/chunker";

const para = (n: number, words = 40): string => Array.from({ length: words }, (_, i) => `p${n}w${i}`).join(" ") + ".";

describe("knowledge chunking", () => {
  it("keeps a short text whole, and gives nothing for a blank one", () => {
    assert.deepEqual(chunkText("  The heater has a red button.  ", { size_tokens: 400, overlap_tokens: 60 }), [
      { text: "The heater has a red button.", char_start: 2, char_end: 30, token_count: 7 },
    ]);
    assert.deepEqual(chunkText(" \n\n \n", { size_tokens: 400, overlap_tokens: 60 }), []);
  });

  it("cuts between paragraphs, never inside one that fits, and each chunk is the source's own text", () => {
    const text = [para(1), para(2), para(3), para(4)].join("\n\n");
    // ~280 characters a paragraph; 100 tokens = 400 characters: one paragraph a chunk.
    const chunks = chunkText(text, { size_tokens: 100, overlap_tokens: 0 });
    assert.equal(chunks.length, 4);
    chunks.forEach((c, i) => {
      assert.equal(c.text, para(i + 1));
      assert.equal(text.slice(c.char_start, c.char_end), c.text);
      assert.ok(c.text.length <= 400);
    });
  });

  it("packs several short paragraphs into one chunk up to the size", () => {
    const text = ["Anna visits on Sundays.", "Tom calls on Fridays.", "The doctor is Dr. Weber."].join("\n\n");
    const chunks = chunkText(text, { size_tokens: 400, overlap_tokens: 60 });
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0].text, text);
  });

  it("cuts a long paragraph at line ends, then at sentence ends, never mid-word", () => {
    const lines = Array.from({ length: 12 }, (_, i) => `Line ${i} says the kettle is in the cupboard left of the sink.`).join("\n");
    for (const c of chunkText(lines, { size_tokens: 40, overlap_tokens: 0 })) {
      assert.match(c.text, /^Line \d+/, "a chunk starts at a line start");
      assert.match(c.text, /sink\.$/, "and ends at a line end");
    }
    const sentences = Array.from({ length: 20 }, (_, i) => `Sentence ${i} is about the garden gate.`).join(" ");
    for (const c of chunkText(sentences, { size_tokens: 30, overlap_tokens: 0 })) {
      assert.match(c.text, /^Sentence \d+/);
      assert.match(c.text, /gate\.$/);
    }
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    for (const c of chunkText(words, { size_tokens: 10, overlap_tokens: 0 })) assert.match(c.text, /^word\d+( word\d+)*$/);
  });

  it("starts each chunk with the end of the one before (the overlap), at a sentence start", () => {
    const text = Array.from({ length: 30 }, (_, i) => `Fact ${i} is written here.`).join(" ");
    const chunks = chunkText(text, { size_tokens: 50, overlap_tokens: 10 });
    assert.ok(chunks.length > 2);
    for (let i = 1; i < chunks.length; i++) {
      assert.ok(chunks[i].char_start < chunks[i - 1].char_end, `chunk ${i} overlaps the one before`);
      assert.ok(chunks[i - 1].char_end - chunks[i].char_start <= 40, "by at most the overlap");
      assert.match(chunks[i].text, /^Fact \d+/, "from a sentence start");
      assert.ok(chunks[i].text.length <= 200);
    }
    // Every fact is whole in some chunk.
    for (let i = 0; i < 30; i++)
      assert.ok(
        chunks.some((c) => c.text.includes(`Fact ${i} is written here.`)),
        `fact ${i}`,
      );
  });

  it("cuts through a word only when it is longer than a whole chunk", () => {
    const chunks = chunkText("x".repeat(100), { size_tokens: 10, overlap_tokens: 0 });
    assert.deepEqual(
      chunks.map((c) => c.text.length),
      [40, 40, 20],
    );
  });
});
