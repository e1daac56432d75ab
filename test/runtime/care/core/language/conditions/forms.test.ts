import assert from "node:assert/strict";
import { evaluateCondition } from "../../../../../../runtime/care/core/language/conditions";
import { pipelineData } from "./fixture";

type Case = [expression: string, expected: boolean];

const groups: Record<string, Case[]> = {
  comparisons: [
    ["count == 5", true],
    ["count != 5", false],
    ["count > 3", true],
    ["count >= 5", true],
    ["count < 5", false],
    ["count <= 5", true],
    ["presence_dwell_minutes > 5", true],
    ["ratio > 0.5", true],
    ["ratio == 0.75", true],
    ["below == -3", true],
    ["below < -2.5", true],
    ["-3 == below", true],
    ["- count == -5", true],
    ["name == 'Alice'", true],
    ['name == "Alice"', true],
    ["name != 'alice'", true],
    ["name < 'Bob'", true], // strings order by code unit
    ["1e3 > 999", true],
    ["1 < count < 10", true], // chained as in Python
    ["1 < count < 4", false],
    ["flag_on == true", true],
    ["flag_off == false", true],
    ["nothing == null", true],
    ["room == {{room}}", true], // objects compare structurally
    ["scene_hazards == scene_hazards", true],
  ],
  "type mismatches are false, never errors": [
    ['"alice" > 5', false],
    ["name > 5", false],
    ["name < 5", false],
    ["nothing > 0", false],
    ["nothing < 0", false],
    ["flag_on > 0", false],
    ["'5' == 5", false], // no coercion between strings and numbers
    ["trigger_input.args.0 == 5", false],
    ["trigger_input.args.0 == '5'", true],
    ["true == 1", false], // booleans are not numbers
    ["scene_hazards > 1", false],
    ["room >= room", false],
    ["- name == null", true], // negating a non-number gives null
  ],
  "and, or, not with Python precedence": [
    ["count > 3 and name == 'Alice'", true],
    ["count > 3 and name == 'Bob'", false],
    ["count > 9 or name == 'Alice'", true],
    ["true or false and false", true], // and binds tighter than or
    ["(true or false) and false", false],
    ["not count == 5", false], // not binds looser than comparison: not (count == 5)
    ["not count > 9", true],
    ["not not flag_on", true],
    ["not flag_off and flag_on", true], // (not flag_off) and flag_on
    ["not (flag_off or flag_on)", false],
    ["True and not False", true], // Python spellings
    ["None == nothing", true],
  ],
  "paths, indexes and sizes": [
    ["person_detections.0.name == 'Ann'", true],
    ["person_detections.1.confidence < 0.5", true],
    ["person_detections.2.name == null", true], // index past the end
    ["person_detections.count == 2", true],
    ["person_detections.length == 2", true],
    ["person_detections.len == 2", true],
    ["scene_hazards.count > 0", true],
    ["no_hazards.count > 0", false],
    ["no_hazards.count == 0", true],
    ["name.length == 5", true], // size of a string
    ["room.count == 2", true], // size of an object without a 'count' key
    ["settings.count == 2", true], // a real key wins over the size alias
    ["signals.0.details.minutes > 10", true],
    ["trigger_input.from_user.first_name == 'Eve'", true],
    ["system.local_day_of_month == 22", true],
    ["missing == null", true],
    ["missing.deeper.still == null", true],
    ["missing.count == null", true], // a path into nothing is null, even its size
    ["name.0 == null", true], // no character indexing
    ["count.x == null", true],
    ["person_detections.name == null", true], // lists have no named keys
    ["constructor == null", true], // only own keys are visible
    ["room.constructor == null", true],
    ["room.__proto__ == null", true],
  ],
  "string escapes": [
    ["'it\\'s' == \"it's\"", true],
    ['"say \\"hi\\"" == \'say "hi"\'', true],
    ["'\\u0041' == 'A'", true],
    ["'a\\nb' | length == 3", true],
    ["'\\d' | length == 2", true], // an unknown escape keeps its backslash
    ["'back\\\\slash' | length == 10", true],
  ],
  "{{ }} wrappers are unwrapped": [
    ["{{count}} > 3", true],
    ["{{ count }} > 3", true],
    ["{{ person_detections.0.name }} == 'Ann'", true],
    ["{{ person_detections | length }} == 2", true],
    ["{{missing}} == null", true],
  ],
  "string literals holding placeholders are templates": [
    ["'{{name}}' == 'Alice'", true],
    ['"{{ room.name }} floor {{room.floor}}" == "Kitchen floor 1"', true],
    ["'{{missing}}' == ''", true],
    ["'{' == '{'", true], // a lone brace is plain text
  ],
  "truthiness of a bare value": [
    ["", false], // an empty expression is false
    ["   ", false],
    ["count", true],
    ["zero", false],
    ["name", true],
    ["empty_text", false],
    ["nothing", false],
    ["missing", false],
    ["scene_hazards", true],
    ["no_hazards", false],
    ["room", true],
    ["'text'", true],
    ["0.0", false],
    ["flag_on or missing", true],
  ],
};

describe("condition language: the forms the original's tests exercise", () => {
  for (const [group, cases] of Object.entries(groups)) {
    describe(group, () => {
      for (const [expression, expected] of cases) {
        it(`${JSON.stringify(expression)} is ${expected}`, () => {
          assert.equal(evaluateCondition(expression, pipelineData), expected);
        });
      }
    });
  }

  it("evaluates against empty data without throwing", () => {
    assert.equal(evaluateCondition("person_detections.0.name == 'Ann'", {}), false);
    assert.equal(evaluateCondition("signals | filter(kind == 'x') | length > 0", {}), false);
    assert.equal(evaluateCondition("not exists(person_detections)", {}), true);
  });
});
