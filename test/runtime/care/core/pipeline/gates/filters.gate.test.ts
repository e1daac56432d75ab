import assert from "node:assert/strict";
import { checkConfig } from "../../../../../../nodes/_kit/config";
import type { FilterHandler, FilterInput, HandlerContext } from "../../../../../../nodes/_kit/handler-types";
import { registry } from "../../../../../../nodes/registry.generated";
import type { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { triggerContext } from "../../../../../../runtime/care/core/pipeline/engine/types";
import { FILTER_TIMEOUT_MS, filtersGate, registryFilterLookup, type FilterLookup } from "../../../../../../runtime/care/core/pipeline/gates/filters.gate";
import type { ContextView } from "../../../../../../runtime/care/core/rules/rule-model";
import { captureLog, type CapturedLog } from "../../../../../support/capture-log";
import type { TestApp } from "../../../../../support/test-app";
import { startGateApp } from "./gate-fixture";

interface FakeConfig {
  pass?: boolean;
  /** Answers (passing) only once the household clock has moved this far. */
  answerAfterMs?: number;
  reason?: string;
  throws?: string;
  hang?: boolean;
}

describe("gates: context filters", () => {
  let t: TestApp;
  let clock: ManualClock;
  let captured: CapturedLog;
  const calls: Array<{ type: string; ctx: HandlerContext<unknown>; input: FilterInput; config: FakeConfig }> = [];

  const fakeHandler =
    (type: string): FilterHandler<FakeConfig> =>
    async (ctx, input, config) => {
      calls.push({ type, ctx, input, config });
      if (config.throws) throw new Error(config.throws);
      if (config.hang) return new Promise(() => undefined);
      const after = config.answerAfterMs;
      if (after !== undefined) return new Promise((resolve) => clock.at(clock.now() + after, () => resolve({ pass: true })));
      return { pass: config.pass === true, reason: config.reason };
    };
  const fakes: FilterLookup = (type) => (["room", "time_range", "day_of_week"].includes(type) ? { handler: fakeHandler(type) } : undefined);

  let nextId = 1;
  const context = (context_type: string, config: FakeConfig, negate = false): ContextView => ({
    id: nextId++,
    rule_id: 7,
    context_type,
    config: { ...config },
    negate,
  });
  const trigger = triggerContext({ trigger_type: "sensor_event", sensor_id: "hall_cam", room_name: "Hall" });
  const gate = (contexts: ContextView[], lookup: FilterLookup = fakes) =>
    filtersGate(t.app.ctx, { id: 7, contexts }, trigger, { services: t.app.services, lookup });

  before(async () => {
    captured = captureLog("debug");
    ({ t, clock } = await startGateApp("UTC", captured.log));
  });
  after(() => t.close());
  beforeEach(() => {
    calls.length = 0;
    captured.lines.length = 0;
  });

  it("passes a rule without contexts", async () => {
    assert.deepEqual(await gate([]), { pass: true });
  });

  it("calls the handler with the app's care services, its clock, and the trigger, rule id and negate", async () => {
    assert.deepEqual(await gate([context("room", { pass: true })]), { pass: true });
    assert.equal(calls.length, 1);
    const [call] = calls;
    assert.equal(call.ctx.services, t.app.services, "the app's one CareServices, not a copy");
    assert.equal(call.ctx.clock, t.app.ctx.clock);
    assert.equal(call.ctx.signal.aborted, false);
    assert.deepEqual(call.input, { trigger, rule_id: 7, negate: false });
    assert.deepEqual(call.config, { pass: true });
    // What the filter logs names the rule and the context it judged, for whoever reads the log.
    call.ctx.log.info({}, "filter said something");
    const line = captured.lines.find((l) => l.msg === "filter said something");
    assert.deepEqual([line?.rule_id, line?.context_type, typeof line?.context_id], [7, "room", "number"]);
  });

  it("ORs contexts of one type: one passing context is enough", async () => {
    assert.deepEqual(await gate([context("room", { pass: false }), context("room", { pass: true })]), { pass: true });
    assert.deepEqual(
      calls.map((c) => c.config.pass),
      [false, true],
    );
  });

  it("holds when no context of a type passes, with every reason", async () => {
    const r = await gate([
      context("room", { pass: false, reason: "room: Hall is not one of Kitchen" }),
      context("room", { pass: false, reason: "room: Hall is not one of Bedroom" }),
    ]);
    assert.deepEqual(r, { pass: false, reason: "none of 2 room contexts passed: room: Hall is not one of Kitchen; room: Hall is not one of Bedroom" });
  });

  it("ANDs different types: every type must pass, and the first type that holds is the reason", async () => {
    assert.deepEqual(await gate([context("room", { pass: true }), context("time_range", { pass: true })]), { pass: true });
    const r = await gate([
      context("room", { pass: true }),
      context("time_range", { pass: false, reason: "time_range: 23:10 is outside 08:00-22:00" }),
      context("day_of_week", { pass: false }),
    ]);
    assert.deepEqual(r, { pass: false, reason: "time_range: 23:10 is outside 08:00-22:00" });
    assert.equal(
      calls.some((c) => c.type === "day_of_week"),
      false,
      "evaluation stops at the first type that holds",
    );
  });

  it("negate inverts one context, not its siblings", async () => {
    assert.deepEqual(await gate([context("room", { pass: false }, true)]), { pass: true });
    const held = await gate([context("room", { pass: true, reason: "room: Hall is one of Hall" }, true)]);
    assert.deepEqual(held, { pass: false, reason: "room: Hall is one of Hall (negated context)" });
    assert.equal(calls.at(-1)?.input.negate, true);
    // OR within the type: the negated one holds, the plain one passes.
    assert.deepEqual(await gate([context("room", { pass: true }, true), context("room", { pass: true })]), { pass: true });
    // AND across types: a negated time range that matches holds the rule even though the room passes.
    const r = await gate([context("room", { pass: true }), context("time_range", { pass: true }, true)]);
    assert.deepEqual(r, { pass: false, reason: "context time_range (negated): matched" });
  });

  it("holds with a reason naming a type that has no handler, or that is unknown", async () => {
    const spec = registry.filters.find((e) => e.spec.type === "scene_trend")!.spec;
    const noHandler: FilterLookup = (type) => (type === "scene_trend" ? { spec } : fakes(type));
    const r = await gate([context("room", { pass: true }), context("scene_trend", {})], noHandler);
    assert.equal(r.pass, false);
    assert.match(r.pass ? "" : r.reason, /^context scene_trend: filter type 'scene_trend' cannot run yet: it needs /);
    assert.deepEqual(await gate([context("weather", {})]), { pass: false, reason: "context weather: unknown context type 'weather'" });
  });

  it("holds when a handler throws, with the error as the reason, and logs it", async () => {
    const r = await gate([context("room", { throws: "the hub did not answer" })]);
    assert.deepEqual(r, { pass: false, reason: "context room failed: the hub did not answer" });
    const logged = captured.lines.find((l) => l.msg === "context filter failed; the rule is held");
    assert.ok(logged, "the failure is logged");
    assert.equal(logged.level, 40);
    assert.equal(logged.context_type, "room");
    // Negate does not turn a failure into a pass, but a passing sibling of the same type still lets the rule through.
    assert.equal((await gate([context("room", { throws: "boom" }, true)])).pass, false);
    assert.deepEqual(await gate([context("room", { throws: "boom" }), context("room", { pass: true })]), { pass: true });
  });

  it("holds a handler that does not answer within the timeout, and aborts its signal", async () => {
    const pending = gate([context("room", { hang: true })]);
    clock.advance(FILTER_TIMEOUT_MS);
    assert.deepEqual(await pending, { pass: false, reason: `context room failed: no answer within ${FILTER_TIMEOUT_MS / 1000} s` });
    assert.equal(calls[0].ctx.signal.aborted, true);
    assert.equal(clock.pendingTimers(), 0);
  });

  it("lets a handler take up to the timeout, and leaves no timer behind once it answers", async () => {
    const pending = gate([context("room", { answerAfterMs: FILTER_TIMEOUT_MS - 1 })]);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(FILTER_TIMEOUT_MS - 1);
    assert.deepEqual(await pending, { pass: true });
    assert.equal(clock.pendingTimers(), 0, "the timeout is cancelled with the answer");
  });

  it("validates the config with the spec and holds on a config that does not parse", async () => {
    const spec = registry.filters.find((e) => e.spec.type === "room")!.spec;
    const lookup: FilterLookup = () => ({ spec, handler: fakeHandler("room") });
    const stored = { pass: true, room_names: 5 } as FakeConfig;
    const r = await gate([context("room", stored)], lookup);
    assert.equal(r.pass, false);
    const check = checkConfig(spec, stored);
    assert.ok(!check.ok && check.problems.length > 1, "the stored config breaks more than one rule of the spec");
    // Every problem, in words, one after another: the caregiver reads what to fix.
    assert.equal(r.pass ? "" : r.reason, `context room: config is invalid (${check.problems.map((p) => p.message).join("; ")})`);
    assert.equal(calls.length, 0);
  });

  it("uses the generated registry by default: a type without a handler holds, naming it", async () => {
    assert.equal(registryFilterLookup("room")?.spec?.type, "room");
    assert.equal(registryFilterLookup("weather"), undefined);
    for (const entry of registry.filters) {
      const r = await filtersGate(t.app.ctx, { id: 7, contexts: [context(entry.spec.type, {})] }, trigger, { services: t.app.services });
      if (!entry.handler)
        assert.deepEqual(r, {
          pass: false,
          reason: `context ${entry.spec.type}: filter type '${entry.spec.type}' cannot run yet: it needs ${entry.spec.pending ?? "a handler"}`,
        });
      else assert.doesNotMatch(r.pass ? "" : r.reason, /cannot run yet/);
    }
  });
});
