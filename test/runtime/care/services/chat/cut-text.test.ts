import assert from "node:assert/strict";
import { cutWhole, cutWithEllipsis } from "../../../../../runtime/care/services/chat/cut-text";

const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("chat texts cut to the Bot API's limit", () => {
  it("never splits an emoji at the limit (the chat would show half of it)", () => {
    const text = `${"a".repeat(4094)}👵🏼 is well`; // the emoji and its skin tone are 4 UTF-16 units
    const cut = cutWithEllipsis(text, 4096);
    assert.ok(cut.length <= 4096);
    assert.doesNotMatch(cut, lone);
    assert.equal(cut, `${"a".repeat(4094)}…`);
  });

  it("keeps a letter with its accent, and leaves a text within the limit as it is", () => {
    assert.equal(cutWhole("Rose\u0301", 4), "Ros");
    assert.equal(cutWithEllipsis("Rose is well 👍", 4096), "Rose is well 👍");
    assert.equal(cutWhole("ab👍", 3), "ab");
  });
});
