/**
 * The words a reply resolves an alert with (issue 49), from every catalog: English, German and
 * Hindi (in Devanagari and in Latin letters); any other reply takes the alert on.
 */
import assert from "node:assert/strict";
import { replyResolves, resolvingWords } from "../../../../../runtime/care/services/chat/resolve-words";
import { translate } from "../../../../../runtime/platform/i18n/catalogs";

describe("chat: the words a reply resolves an alert with", () => {
  it("come from every catalog, Hindi's among them", () => {
    for (const w of ["resolved", "done", "ok", "erledigt", "हो गया", "हल हो गया", "ठीक है", "ho gaya"]) assert.ok(resolvingWords().includes(w), w);
    assert.ok(translate("hi", "chat.reply_resolves").includes("हो गया"), "the Hindi catalog has its own");
  });

  const table: Array<[string, boolean]> = [
    ["resolved, she is fine", true],
    ["Done.", true],
    ["OK", true],
    ["Erledigt, sie schläft", true],
    ["हो गया", true],
    ["हल हो गया।", true],
    ["  ठीक है, वह ठीक है", true],
    ["Ho gaya bhai", true],
    ["theek hai", true],
    ["on my way", false],
    ["okay I'll go", false],
    ["मैं आ रहा हूँ", false],
    ["होगा", false],
    ["ठीक नहीं है", false],
    ["doneness", false],
  ];
  for (const [text, resolves] of table)
    it(`"${text}" ${resolves ? "resolves" : "takes it on"}`, () => {
      assert.equal(replyResolves(text), resolves);
    });
});
