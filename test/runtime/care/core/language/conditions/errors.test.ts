import assert from "node:assert/strict";
import { compileCondition, ConditionSyntaxError, evaluateCondition } from "../../../../../../runtime/care/core/language/conditions";

type ErrorCase = [expression: string, message: string, position: number];

const cases: ErrorCase[] = [
  ["a == (b))", "unexpected token ')' at 8", 8],
  ["count > 3)", "unexpected token ')' at 9", 9],
  ["(count > 3", "expected ')' (opened at 0) but found end of expression at 10", 10],
  ["count >", "unexpected end of expression at 7", 7],
  ["count > > 3", "unexpected token '>' at 8", 8],
  ["count 3", "unexpected token '3' at 6", 6],
  ["and count", "unexpected token 'and' at 0", 0],
  ["name == 'Ann", "unterminated string at 8", 8],
  ['name == "Ann', "unterminated string at 8", 8],
  ["count = 3", "use '==' to compare at 6", 6],
  ["a && b", "use 'and' instead of '&&' at 2", 2],
  ["a || b", "use 'or' instead of '||' at 2", 2],
  ["!a", "use 'not' instead of '!' at 0", 0],
  ["items[0] == 1", "list indexes are dotted segments: write items.0, not items[0] at 5", 5],
  ["a # b", "unexpected character '#' at 2", 2],
  ["person_detections. == 1", "expected a key or index after '.' at 17", 17],
  ["a..b", "expected a key or index after '.' at 1", 1],
  ["3abc > 1", "malformed number '3abc' at 0", 0],
  ["1.2.3 > 1", "malformed number '1.2.3' at 0", 0],
  ["true.x", "'true' is a keyword and cannot start a path at 0", 0],
  ["lenght(tags) > 0", "unknown function 'lenght'; did you mean 'length'? at 0", 0],
  ["tags | lenght > 0", "unknown function 'lenght'; did you mean 'length'? at 7", 7],
  ["frobnicate(x)", "unknown function 'frobnicate' at 0", 0],
  ["tags | frobnicate", "unknown function 'frobnicate' at 7", 7],
  ["tags |", "expected a function name after '|' but found end of expression at 6", 6],
  ["tags | 3", "expected a function name after '|' but found '3' at 7", 7],
  ["tags | a.b", "expected a function name after '|' but found 'a.b' at 7", 7],
  ["room.name(1)", "'room.name' is a path and cannot be called at 0", 0],
  ["contains(tags)", "contains() takes 2 arguments, got 1 at 0", 0],
  ["exists()", "exists() takes 1 argument, got 0 at 0", 0],
  ["lower(a, b)", "lower() takes 1 argument, got 2 at 0", 0],
  ["tags | filter", "'| filter' takes 1 argument, got 0 at 7", 7],
  ["tags | filter()", "'| filter' takes 1 argument, got 0 at 7", 7],
  ["tags | length(1)", "'| length' takes 0 arguments, got 1 at 7", 7],
  ["tags | join(',', 2)", "'| join' takes 0 to 1 arguments, got 2 at 7", 7],
  ["contains(tags 'x')", "expected ')' (opened at 8) but found \"x\" at 14", 14],
  ["contains(tags, )", "unexpected token ')' at 15", 15],
  ["signals | filter(kind == )", "unexpected token ')' at 25", 25],
  ["{{ count > 3", "expected '}}' (opened at 0) but found end of expression at 12", 12],
  ["{{ }} > 3", "empty '{{ }}' at 0", 0],
  ["count } 3", "unexpected character '}' at 6", 6],
  ["'{{ name' == 'x'", "unclosed '{{' at 1", 1],
  ["'hi {{ nme | lowr }}' == 'x'", "unknown function 'lowr'; did you mean 'lower'? at 13", 13],
];

describe("condition language: syntax errors carry a position", () => {
  for (const [expression, message, position] of cases) {
    it(`${JSON.stringify(expression)} → ${message}`, () => {
      const compiled = compileCondition(expression);
      assert.equal(compiled.ok, false);
      if (compiled.ok) return;
      assert.equal(compiled.error.message, message);
      assert.equal(compiled.error.position, position);
      assert.equal(compiled.error.detail, message.replace(/ at \d+$/, ""));
    });
  }

  it("shows a caret under the offending character", () => {
    const compiled = compileCondition("count > 3 and (name == 'x'))");
    assert.ok(!compiled.ok);
    assert.equal(compiled.error.caret, "count > 3 and (name == 'x'))\n                           ^");
  });

  it("puts the caret on the right line of a multi-line expression", () => {
    const compiled = compileCondition("count > 3\n  and name ==");
    assert.ok(!compiled.ok);
    assert.equal(compiled.error.position, 23);
    assert.equal(compiled.error.caret, "  and name ==\n             ^");
  });

  it("evaluateCondition throws a ConditionSyntaxError (422) for a broken rule", () => {
    assert.throws(
      () => evaluateCondition("count >", { count: 1 }),
      (e: unknown) => e instanceof ConditionSyntaxError && e.position === 7 && e.status === 422,
    );
  });
});
