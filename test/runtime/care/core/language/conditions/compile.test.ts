import assert from "node:assert/strict";
import { compileCondition, resolvePath } from "../../../../../../runtime/care/core/language/conditions";
import { LruCache } from "../../../../../../runtime/care/core/language/conditions/compile-cache";
import { pipelineData } from "./fixture";

describe("compileCondition", () => {
  it("lists every path read, with offsets, marking those read from filter/map items", () => {
    const source = "signals | filter(kind == 'x' and severity != level) | length > 0 and {{ count }} > min_count";
    const compiled = compileCondition(source);
    assert.ok(compiled.ok);
    assert.deepEqual(
      compiled.references.map((r) => [r.path, r.root, r.itemScoped, source.slice(r.start, r.end)]),
      [
        ["signals", "signals", false, "signals"],
        ["kind", "kind", true, "kind"],
        ["severity", "severity", true, "severity"],
        ["level", "level", true, "level"],
        ["count", "count", false, "count"],
        ["min_count", "min_count", false, "min_count"],
      ],
    );
  });

  it("reports dotted references with their root", () => {
    const compiled = compileCondition("person_detections.0.name == trigger_input.from_user.first_name");
    assert.ok(compiled.ok);
    assert.deepEqual(
      compiled.references.map((r) => [r.path, r.root, r.start, r.end]),
      [
        ["person_detections.0.name", "person_detections", 0, 24],
        ["trigger_input.from_user.first_name", "trigger_input", 28, 62],
      ],
    );
  });

  it("reports references inside template strings at their offset in the source", () => {
    const source = "'Hi {{ person_detections.0.name }}' == greeting";
    const compiled = compileCondition(source);
    assert.ok(compiled.ok);
    assert.deepEqual(
      compiled.references.map((r) => source.slice(r.start, r.end)),
      ["person_detections.0.name", "greeting"],
    );
  });

  it("lists the functions used, as written, once each", () => {
    const compiled = compileCondition("exists(a) and tags | filter(contains(x, 'y')) | count > len(b) and exists(c)");
    assert.ok(compiled.ok);
    assert.deepEqual(compiled.functions, ["exists", "contains", "filter", "count", "len"]);
  });

  it("does not treat unknown paths as errors (the caller warns)", () => {
    const compiled = compileCondition("no_such_key.deep > 3");
    assert.ok(compiled.ok);
    assert.equal(compiled.evaluate(pipelineData), false);
    assert.deepEqual(
      compiled.references.map((r) => r.root),
      ["no_such_key"],
    );
  });

  it("compiles an empty expression to false with nothing referenced", () => {
    const compiled = compileCondition("  ");
    assert.ok(compiled.ok);
    assert.equal(compiled.evaluate(pipelineData), false);
    assert.deepEqual([compiled.references, compiled.functions], [[], []]);
  });

  it("returns the cached compilation for the same source text, success or failure", () => {
    assert.equal(compileCondition("count > 41"), compileCondition("count > 41"));
    assert.equal(compileCondition("count >>"), compileCondition("count >>"));
    assert.notEqual(compileCondition("count > 41"), compileCondition("count > 42"));
  });

  it("is frozen, so a caller cannot corrupt the shared cached result", () => {
    const compiled = compileCondition("count > 1 and exists(x)");
    assert.ok(compiled.ok);
    assert.ok(Object.isFrozen(compiled) && Object.isFrozen(compiled.references) && Object.isFrozen(compiled.functions));
  });
});

describe("LruCache", () => {
  it("evicts the least recently used entry beyond its capacity", () => {
    const cache = new LruCache<number>(2);
    let created = 0;
    const make = (k: string) => (created++, k.length);
    cache.getOrCreate("a", make);
    cache.getOrCreate("bb", make);
    cache.getOrCreate("a", make); // "a" is now the most recent
    cache.getOrCreate("ccc", make); // evicts "bb"
    assert.deepEqual([cache.has("a"), cache.has("bb"), cache.has("ccc"), cache.size, created], [true, false, true, 2, 3]);
  });
});

describe("resolvePath (shared with templates)", () => {
  const cases: Array<[path: string, expected: unknown]> = [
    ["person_detections.0.name", "Ann"],
    ["person_detections.count", 2],
    ["person_detections.5", null],
    ["room", pipelineData.room],
    ["count", 5],
    ["length", null], // at the root a size alias is only a key
    ["missing.x", null],
    ["nothing.x", null],
    ["trigger_input.args.1", "pills"],
  ];
  for (const [path, expected] of cases) {
    it(`${path} → ${JSON.stringify(expected)}`, () => assert.deepEqual(resolvePath(pipelineData, path), expected));
  }
});
