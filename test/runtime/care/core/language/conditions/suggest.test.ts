import assert from "node:assert/strict";
import { editDistance, suggest } from "../../../../../../runtime/care/core/language/suggest";

describe("suggest (did you mean)", () => {
  const keys = ["person_detections", "presence_dwell_minutes", "scene_hazards", "system", "signals", "trigger_input"];
  const cases: Array<[name: string, candidates: readonly string[], expected: string | undefined]> = [
    ["persn_detections", keys, "person_detections"], // one deletion
    ["person_detectoins", keys, "person_detections"], // one transposition
    ["Person_Detections", keys, "person_detections"], // letter case only
    ["scene_hazard", keys, "scene_hazards"],
    ["sytsem", keys, "system"],
    ["signal", keys, "signals"],
    ["trigger", keys, undefined], // too far from trigger_input
    ["weather", keys, undefined],
    ["sx", ["sy", "x"], undefined], // two-letter names are never "close"
    ["lenght", ["length", "len", "lower"], "length"],
    ["cuont", ["count", "contains"], "count"],
    ["Greet Ann", ["Greet Ann ", "Greet Bob"], "Greet Ann "], // step labels
    ["check_presense", ["check_presence", "check_absence"], "check_presence"],
    ["anything", [], undefined],
  ];
  for (const [name, candidates, expected] of cases) {
    it(`${name} → ${expected ?? "(none)"}`, () => assert.equal(suggest(name, candidates), expected));
  }

  it("prefers the closest candidate, then the earlier one", () => {
    assert.equal(suggest("signalz", ["signs", "signals", "signalx"]), "signals");
  });

  const distances: Array<[string, string, number]> = [
    ["", "", 0],
    ["abc", "", 3],
    ["kitten", "sitting", 3],
    ["ab", "ba", 1],
    ["ca", "abc", 3], // optimal string alignment, not full Damerau
    ["same", "same", 0],
  ];
  for (const [a, b, d] of distances) {
    it(`editDistance(${JSON.stringify(a)}, ${JSON.stringify(b)}) = ${d}`, () => assert.equal(editDistance(a, b), d));
  }

  it("stops early past a limit", () => {
    assert.equal(editDistance("aaaaaaaa", "bbbbbbbb", 2), 3);
  });
});
