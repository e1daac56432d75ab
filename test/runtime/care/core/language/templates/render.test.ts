import assert from "node:assert/strict";
import { renderTemplate } from "../../../../../../runtime/care/core/language/templates";
import { pipelineData } from "../conditions/fixture";

const cases: Array<[template: string, expected: string]> = [
  ["Hello {{person_detections.0.name}}, it is {{system.local_time}}", "Hello Ann, it is 9:05 AM"],
  ["{{ person_detections.1.name }}", "Bob"], // whitespace inside braces
  ["{{person_detections.1.person_id}}", "p-2"],
  ["{{person_detections.count}} people", "2 people"],
  ["{{scene_hazards.length}}", "2"],
  ["{{count}} / {{ratio}} / {{below}}", "5 / 0.75 / -3"],
  ["{{flag_on}} {{flag_off}}", "true false"],
  ["{{zero}}", "0"],
  ["[{{missing}}]", "[]"], // missing renders empty, never "{{missing}}"
  ["[{{nothing}}]", "[]"],
  ["[{{person_detections.9.name}}]", "[]"],
  ["{{room}}", '{"name":"Kitchen","floor":1}'], // objects as JSON
  ["{{tags}}", '["Kitchen","night"]'],
  ["{{no_hazards}}", "[]"],
  ["{{signals.0.details}}", '{"minutes":12.5}'],
  ['{"who": {{room.name | default(null) }}, "room": {{room}}}', '{"who": Kitchen, "room": {"name":"Kitchen","floor":1}}'],
  ["{{ name | upper }}", "ALICE"],
  ["{{ name | lower }}", "alice"],
  ["{{ tags | join(' and ') }}", "Kitchen and night"],
  ["{{ person_detections | map(name) | join }}", "Ann, Bob"],
  ["{{ nickname | default('dear') }}", "dear"],
  ["{{ nickname or name }}", "Alice"],
  ["{{ signals.0.details.minutes | round }} minutes", "13 minutes"],
  ["{{ signals | filter(severity == 'emergency') | length }}", "1"],
  ["{{ count > 3 }}", "true"],
  ["{{ '}}' }}", "}}"], // a quoted }} does not close the placeholder
  ["no placeholders at all", "no placeholders at all"],
  ["", ""],
  ["a { b } c }}", "a { b } c }}"], // stray braces are text
  ["Hi {{ name", "Hi {{ name"], // unclosed: left as text (and reported at save time)
  ["Hi {{ name | nope }}!", "Hi !"], // broken placeholder renders empty (and is reported at save time)
  ["{{}}x", "x"],
  ["{{a}}{{b}}", ""],
  ["line1\n{{ name }}\nline3", "line1\nAlice\nline3"],
];

describe("renderTemplate", () => {
  for (const [template, expected] of cases) {
    it(`${JSON.stringify(template)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(renderTemplate(template, pipelineData), expected);
    });
  }

  it("renders a Date a step left in pipeline_data as ISO text and does not walk into it", () => {
    const when = new Date(Date.UTC(2026, 10, 22, 8, 30));
    assert.equal(renderTemplate("{{ when }}|{{ when.getTime }}", { when }), "2026-11-22T08:30:00.000Z|");
  });

  it("renders the same template differently for different data (compiled once, not frozen to data)", () => {
    const template = "Good morning {{ person.name }}";
    assert.equal(renderTemplate(template, { person: { name: "Ann" } }), "Good morning Ann");
    assert.equal(renderTemplate(template, { person: { name: "Bob" } }), "Good morning Bob");
    assert.equal(renderTemplate(template, {}), "Good morning ");
  });
});
