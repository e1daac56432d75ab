/** Fitting without a canvas: a fake measure where every character is half the font size wide. */
import assert from "node:assert/strict";
import { ELLIPSIS, fitText, lineHeightFor, withEllipsis, wrapText, type Measure } from "../../../../../runtime/care/services/eink/text-layout";

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const measure: Measure = (text, size) => Array.from(graphemes.segment(text)).length * size * 0.5;

describe("e-ink text layout", () => {
  it("wraps words to the width and keeps paragraphs (\\n), including empty ones", () => {
    // 10 px per character at size 20: 100 px holds 10 characters.
    const lines = wrapText("aaa bbb ccc ddd\n\neee", 100, 20, measure, false);
    assert.deepEqual(lines, ["aaa bbb", "ccc ddd", "", "eee"]);
  });

  it("uses the largest size that fits, stepping down from max", () => {
    const fitted = fitText("hello world", { width: 200, height: 200, sizeMax: 80, sizeMin: 10 }, measure);
    // "hello world" is 11 chars = 5.5*size wide on one line; two lines of 5 = 2.5*size wide.
    // Two lines need 2 * ceil(1.3*size) <= 200 -> size <= 76; width 2.5*size <= 200 -> 80.
    assert.equal(fitted.sizePx, 76);
    assert.deepEqual(fitted.lines, ["hello", "world"]);
    assert.equal(fitted.truncated, false);
    assert.ok(fitted.lines.length * lineHeightFor(fitted.sizePx) <= 200);
  });

  it("finds the same size as stepping one pixel at a time", () => {
    const text = "Take your blood pressure tablet with a glass of water after breakfast";
    for (const box of [
      { width: 720, height: 260, sizeMax: 64, sizeMin: 12 },
      { width: 300, height: 90, sizeMax: 40, sizeMin: 8 },
      { width: 500, height: 400, sizeMax: 120, sizeMin: 30 },
    ]) {
      let stepped = box.sizeMin;
      for (let s = box.sizeMax; s >= box.sizeMin; s--) {
        const lines = wrapText(text, box.width, s, measure, false);
        if (lines && lines.length * lineHeightFor(s) <= box.height) {
          stepped = s;
          break;
        }
      }
      assert.equal(fitText(text, box, measure).sizePx, stepped, JSON.stringify(box));
    }
  });

  it("truncates with an ellipsis at the minimum size when the text still does not fit", () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const box = { width: 200, height: 60, sizeMax: 30, sizeMin: 20 };
    const fitted = fitText(long, box, measure);
    assert.equal(fitted.sizePx, 20);
    assert.equal(fitted.truncated, true);
    assert.equal(fitted.lines.length, Math.floor(60 / lineHeightFor(20)));
    assert.ok(fitted.lines[fitted.lines.length - 1].endsWith(ELLIPSIS));
    for (const line of fitted.lines) assert.ok(measure(line, 20) <= 200, line);
  });

  it("breaks a word longer than the line instead of overflowing", () => {
    const word = "x".repeat(50);
    const fitted = fitText(word, { width: 100, height: 400, sizeMax: 20, sizeMin: 20 }, measure);
    assert.equal(fitted.truncated, false);
    assert.equal(fitted.lines.join(""), word);
    for (const line of fitted.lines) assert.ok(measure(line, 20) <= 100);
  });

  it("breaks and truncates a long unbreakable word in a small region", () => {
    const fitted = fitText("https://example.invalid/" + "a".repeat(300), { width: 100, height: 30, sizeMax: 20, sizeMin: 20 }, measure);
    assert.equal(fitted.truncated, true);
    assert.equal(fitted.lines.length, 1);
    assert.ok(fitted.lines[0].endsWith(ELLIPSIS));
    assert.ok(measure(fitted.lines[0], 20) <= 100);
  });

  it("never splits a Tamil syllable when breaking or truncating", () => {
    const tamil = "மருந்துஎடுத்துக்கொள்ளுங்கள்".repeat(4);
    const clusters = new Set(Array.from(graphemes.segment(tamil), (s) => s.segment));
    const fitted = fitText(tamil, { width: 60, height: 60, sizeMax: 20, sizeMin: 20 }, measure);
    for (const line of fitted.lines) {
      for (const g of Array.from(graphemes.segment(line.replace(ELLIPSIS, "")), (s) => s.segment)) assert.ok(clusters.has(g), `split cluster ${g}`);
    }
    assert.equal(fitted.truncated, true);
  });

  it("shortens the last line to make room for the ellipsis", () => {
    const cut = withEllipsis("abcdefghij", 60, 20, measure); // 6 characters of 10 px
    assert.equal(cut, "abcde" + ELLIPSIS);
  });
});
