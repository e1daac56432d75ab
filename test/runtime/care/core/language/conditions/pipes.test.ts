import assert from "node:assert/strict";
import { compileCondition, evaluateCondition, functionCatalog } from "../../../../../../runtime/care/core/language/conditions";
import { pipelineData } from "./fixture";

/** The value an expression yields (not just its truthiness), so each function is checked exactly. */
function valueOf(expression: string, data: Readonly<Record<string, unknown>> = pipelineData): unknown {
  const compiled = compileCondition(expression);
  assert.ok(compiled.ok, compiled.ok ? "" : compiled.error.message);
  return compiled.valueOf(data);
}

const cases: Array<[expression: string, expected: unknown]> = [
  // the spec's pipe form
  ["signals | filter(kind == 'pacing' and severity != 'info') | length > 0", true],
  ["signals | filter(kind == 'pacing' and severity != 'info') | length", 1],
  ["signals | filter(kind == 'wandering') | length > 0", false],
  ["signals | filter(severity == 'emergency') | first", pipelineData.signals[2]],
  ["signals | filter(details.minutes > 10) | count", 2],
  ["signals | filter(kind == 'pacing') | map(severity)", ["warning", "info"]],
  ["signals | map(details.minutes) | sum", 55.5],
  ["signals | map(details.minutes) | max", 40],
  ["signals | map(details.minutes) | min", 3],
  ["signals | map(severity == 'emergency') | any", true],
  ["signals | map(severity == 'emergency') | all", false],
  ["signals | last", pipelineData.signals[2]],
  // filter reads the item's fields first, then pipeline_data
  ["signals | filter(kind == 'pacing' and count == 5) | length", 2],
  ["person_detections | filter(name == 'Ann' and confidence > 0.9) | map(person_id)", ["p-1"]],
  ["tags | filter(item == 'night')", ["night"]], // `item` is the element itself
  ["scores | filter(item > 3)", [9, 4]],
  ["signals | filter(signals | filter(severity == 'info') | length == 1) | length", 3], // nested
  // collection pipes on nothing
  ["missing | filter(kind == 'x')", []],
  ["missing | filter(kind == 'x') | length > 0", false],
  ["missing | length", 0],
  ["missing | map(name)", []],
  ["missing | sum", 0],
  ["missing | first", null],
  ["missing | any", null],
  ["room | filter(name == 'Kitchen')", []], // an object is not a list
  ["no_hazards | all", true], // as in Python
  ["no_hazards | max", null],
  ["tags | max", "night"],
  ["person_detections | map(name) | min", "Ann"],
  ["mixed | max", null], // numbers and strings do not order against each other
  ["mixed | sum", 1],
  ["person_detections | map(confidence) | max", 0.92],
  // functions, called or piped: the same table
  ["exists(name)", true],
  ["exists(nothing)", false],
  ["exists(missing)", false],
  ["exists(zero)", true],
  ["exists(empty_text)", true],
  ["name | exists", true],
  ["contains(scene_hazards, 'rug')", true],
  ["contains(scene_hazards, 'Rug')", false],
  ["icontains(scene_hazards, 'RUG')", true],
  ["contains(name, 'lic')", true],
  ["contains(name, 'LIC')", false],
  ["icontains(name, 'LIC')", true],
  ["contains(room, 'floor')", true], // object: has key
  ["icontains(room, 'FLOOR')", true],
  ["contains(scores, 9)", true],
  ["contains(scores, '9')", false],
  ["contains(name, 5)", false],
  ["contains(missing, 'x')", false],
  ["contains(person_detections, person_detections.0)", true], // structural membership
  ["name | contains('Ali')", true],
  ["person_detections | map(name) | icontains('bob')", true],
  ["lower(name)", "alice"],
  ["upper(name)", "ALICE"],
  ["name | lower == 'alice'", true],
  ["lower(count)", 5], // non-strings pass through
  ["lower(missing)", null],
  ["len(tags)", 2],
  ["length(name)", 5],
  ["count(room)", 2],
  ["len(count)", null], // a number has no size
  ["number(trigger_input.args.0) == 5", true],
  ["number('x')", null],
  ["number('')", null],
  ["default(missing, 'someone')", "someone"],
  ["default(empty_text, 'someone')", "someone"],
  ["default(name, 'someone')", "Alice"],
  ["default(zero, 9)", 0],
  ["tags | join", "Kitchen, night"],
  ["tags | join(' & ')", "Kitchen & night"],
  ["person_detections | map(confidence) | join('/')", "0.92/0.41"],
  ["missing | join", ""],
  ["round(ratio)", 1],
  ["round(2.5)", 3],
  ["round(-2.5)", -3], // half away from zero
  ["signals.0.details.minutes | round", 13],
  ["round(0.125, 2)", 0.13],
  ["round(name)", "Alice"],
  ["nickname or name", "Alice"], // or yields the deciding operand, as in Python
  ["name and count", 5],
  ["empty_text and count", ""],
];

describe("condition language: functions and pipes", () => {
  for (const [expression, expected] of cases) {
    it(`${expression} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(valueOf(expression), expected);
    });
  }

  it("evaluate() is the truthiness of the value", () => {
    assert.equal(evaluateCondition("signals | filter(kind == 'pacing')", pipelineData), true);
    assert.equal(evaluateCondition("signals | filter(kind == 'nope')", pipelineData), false);
    assert.equal(evaluateCondition("missing | sum", pipelineData), false);
  });

  it("every catalogued function is callable both ways with its minimum arity", () => {
    for (const fn of functionCatalog()) {
      const extra = Array.from({ length: fn.minArgs - 1 }, () => "count");
      const called = compileCondition(`${fn.name}(${["tags", ...extra].join(", ")})`);
      const piped = compileCondition(`tags | ${fn.name}${extra.length ? `(${extra.join(", ")})` : ""}`);
      assert.ok(called.ok && piped.ok, `${fn.name}: ${called.ok ? "" : called.error.message} ${piped.ok ? "" : piped.error.message}`);
      assert.deepEqual(called.valueOf(pipelineData), piped.valueOf(pipelineData), fn.name);
    }
  });

  it("never throws for odd data", () => {
    const odd = { a: [null, 1, "x", [], {}, true], b: { c: null }, big: 10n, cyclic: {} as Record<string, unknown> };
    odd.cyclic.self = odd.cyclic;
    const expressions = functionCatalog().map((fn) =>
      fn.kind === "per-item" ? `a | ${fn.name}(item > 0)` : `${fn.name}(${Array.from({ length: fn.minArgs }, () => "a").join(", ")})`,
    );
    expressions.push("a | map(b.c) | join", "big > 1", "big == big", "{{ big }} == 1", "b.c.d | length", "'{{cyclic}}' == ''");
    for (const expression of expressions) assert.doesNotThrow(() => evaluateCondition(expression, odd), expression);
  });
});
