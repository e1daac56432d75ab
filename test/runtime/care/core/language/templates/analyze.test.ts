import assert from "node:assert/strict";
import { analyzeTemplate } from "../../../../../../runtime/care/core/language/templates";

describe("analyzeTemplate", () => {
  it("lists references with their offsets in the template", () => {
    const text = "Hello {{person_detections.0.name}}, it is {{ system.local_time }}.";
    const { references, errors } = analyzeTemplate(text);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      references.map((r) => ({ path: r.path, root: r.root, start: r.start, end: r.end })),
      [
        { path: "person_detections.0.name", root: "person_detections", start: 8, end: 32 },
        { path: "system.local_time", root: "system", start: 45, end: 62 },
      ],
    );
    assert.equal(text.slice(references[1].start, references[1].end), "system.local_time");
  });

  it("lists references read through pipes, marking item fields", () => {
    const { references } = analyzeTemplate("{{ signals | filter(severity == 'info') | map(kind) | join }} {{ nickname or name }}");
    assert.deepEqual(
      references.map((r) => [r.path, r.itemScoped]),
      [
        ["signals", false],
        ["severity", true],
        ["kind", true],
        ["nickname", false],
        ["name", false],
      ],
    );
  });

  type ErrorCase = [text: string, messages: string[]];
  const errorCases: ErrorCase[] = [
    ["Hi {{ name", ["unclosed '{{' at 3"]],
    ["{{a}} and {{b", ["unclosed '{{' at 10"]],
    ["Hi {{ }}", ["empty placeholder '{{ }}' at 3"]],
    ["Hi {{ name | nope }}", ["unknown function 'nope' at 13"]],
    ["Hi {{ name | uper }}", ["unknown function 'uper'; did you mean 'upper'? at 13"]],
    ["{{ a b }}", ["unexpected token 'b' at 5"]],
    ["{{ a. }}", ["expected a key or index after '.' at 4"]],
    ["{{ 'open }}", ["unterminated string at 3"]],
    ['{{ "a {{" }}', ["unclosed '{{' at 6"]], // a string literal with {{ is itself a template
    ["x {{ a = 1 }} y {{ ok }} {{ b", ["use '==' to compare at 7", "unclosed '{{' at 25"]],
  ];
  for (const [text, messages] of errorCases) {
    it(`${JSON.stringify(text)} → ${messages.join("; ")}`, () => {
      const { errors } = analyzeTemplate(text);
      assert.deepEqual(
        errors.map((e) => e.message),
        messages,
      );
      for (const e of errors) assert.equal(e.message.endsWith(` at ${e.position}`), true);
    });
  }

  it("shows a caret under the error on its own line", () => {
    const { errors } = analyzeTemplate("Dear {{ name }},\nplease take {{ pills");
    assert.equal(errors[0].position, 29);
    assert.equal(errors[0].caret, "please take {{ pills\n            ^");
  });

  it("still reports the references of the good placeholders when another one is broken", () => {
    const { references, errors } = analyzeTemplate("{{ a }} {{ b | nope }} {{ c }}");
    assert.deepEqual(
      references.map((r) => r.path),
      ["a", "c"],
    );
    assert.equal(errors.length, 1);
  });
});
