import assert from "node:assert/strict";
import { handler } from "../../../../nodes/filters/dementia_signal/dementia_signal.handler";
import { spec } from "../../../../nodes/filters/dementia_signal/dementia_signal.node";
import type { TriggerContext } from "../../../../nodes/_kit/handler-types";
import { trigger } from "../../handler-context";
import { configOf, MIN, useTrackingDb, type TrackingDb } from "../_support/tracking-db";

const NOW = Date.parse("2026-11-22T10:00:00Z");
type Seed = (t: TrackingDb) => Promise<unknown>;

let seq = 0;
/** A signal created `ago` minutes before NOW, acknowledged `ackAgo` minutes before NOW when given. */
const signal =
  (person_id: string, kind: string, severity: string, ago: number, ackAgo?: number): Seed =>
  (t) =>
    t.seed.signal({
      signal_id: `sig-${++seq}`,
      person_id,
      kind,
      severity,
      createdMs: NOW - ago * MIN,
      acknowledgedMs: ackAgo === undefined ? undefined : NOW - ackAgo * MIN,
    });
const profile =
  (person_id: string, enabled_kinds: string[], min_severity: string): Seed =>
  (t) =>
    t.seed.person(person_id, { enabled_kinds, min_severity });

describe("dementia_signal filter handler", () => {
  const t = useTrackingDb();
  const openPacing = signal("rose", "pacing", "warning", 2);

  const cases: Array<[string, Seed[], Record<string, unknown>, boolean, string]> = [
    ["an open signal, every kind and person", [openPacing], {}, true, "the warning pacing signal of rose is unacknowledged"],
    ["emergency is above warning", [signal("rose", "absence", "emergency", 1)], {}, true, "the emergency absence signal of rose is unacknowledged"],
    ["info is below the default warning", [signal("rose", "pacing", "info", 2)], {}, false, "no unacknowledged signal of any kind at warning or above"],
    ["info at severity_min info", [signal("rose", "pacing", "info", 2)], { severity_min: "info" }, true, "the info pacing signal of rose is unacknowledged"],
    [
      "a kind not chosen",
      [openPacing],
      { kinds: ["absence", "nighttime_movement"] },
      false,
      "no unacknowledged absence or nighttime_movement signal at warning or above",
    ],
    ["a chosen kind", [openPacing], { kinds: ["absence", "pacing"] }, true, "the warning pacing signal of rose is unacknowledged"],
    ["another person's signal", [openPacing], { person_ids: ["arun"] }, false, "no unacknowledged signal of any kind at warning or above for arun"],
    [
      "an acknowledged signal is not open",
      [signal("rose", "pacing", "warning", 50, 45)],
      {},
      false,
      "no unacknowledged signal of any kind at warning or above",
    ],
    [
      "cooldown: the same kind and person acknowledged recently",
      [signal("rose", "pacing", "warning", 20, 10), openPacing],
      {},
      false,
      "a pacing signal of rose was acknowledged 10 min ago (cooldown 30 min)",
    ],
    ["cooldown over", [signal("rose", "pacing", "warning", 50, 40), openPacing], {}, true, "the warning pacing signal of rose is unacknowledged"],
    [
      "cooldown off",
      [signal("rose", "pacing", "warning", 5, 1), openPacing],
      { cooldown_minutes: 0 },
      true,
      "the warning pacing signal of rose is unacknowledged",
    ],
    [
      "a longer cooldown",
      [signal("rose", "pacing", "warning", 50, 40), openPacing],
      { cooldown_minutes: 60 },
      false,
      "a pacing signal of rose was acknowledged 40 min ago (cooldown 60 min)",
    ],
    [
      "cooldown of another kind does not hold",
      [signal("rose", "absence", "warning", 20, 5), openPacing],
      {},
      true,
      "the warning pacing signal of rose is unacknowledged",
    ],
    [
      "cooldown of another person does not hold",
      [signal("arun", "pacing", "warning", 20, 5), openPacing],
      {},
      true,
      "the warning pacing signal of rose is unacknowledged",
    ],
    [
      "one cooled signal, another open",
      [signal("rose", "pacing", "warning", 20, 5), openPacing, signal("rose", "absence", "warning", 3)],
      {},
      true,
      "the warning absence signal of rose is unacknowledged",
    ],
    [
      "the alert profile leaves the kind out",
      [profile("rose", ["absence"], "info"), openPacing],
      {},
      false,
      "the warning pacing signal of rose is not enabled in rose's alert profile",
    ],
    [
      "the alert profile wants higher severity",
      [profile("rose", ["pacing"], "emergency"), openPacing],
      {},
      false,
      "the warning pacing signal of rose is not enabled in rose's alert profile",
    ],
    [
      "the alert profile allows it",
      [profile("rose", ["pacing", "absence"], "warning"), openPacing],
      {},
      true,
      "the warning pacing signal of rose is unacknowledged",
    ],
    [
      "a member without a profile gets every kind",
      [(t) => t.seed.person("rose", null), openPacing],
      {},
      true,
      "the warning pacing signal of rose is unacknowledged",
    ],
  ];
  for (const [name, seeds, config, pass, reason] of cases) {
    it(`${name} → ${pass ? "pass" : "hold"}`, async () => {
      for (const s of seeds) await s(t);
      const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, config));
      assert.deepEqual(r, { pass, reason: `dementia_signal: ${reason}` });
    });
  }

  describe("a rule started by a signal judges that signal", () => {
    const bySignal = (signal_id: string): TriggerContext => trigger({ trigger_type: "dementia_signal", webhook_payload: { signal_id } });
    beforeEach(async () => {
      await t.seed.signal({ signal_id: "old-absence", person_id: "rose", kind: "absence", severity: "warning", createdMs: NOW - 90 * MIN });
      await t.seed.signal({ signal_id: "new-pacing", person_id: "rose", kind: "pacing", severity: "warning", createdMs: NOW - 1 * MIN });
    });
    const cases: Array<[string, string, Record<string, unknown>, boolean]> = [
      ["the triggering kind is not chosen", "new-pacing", { kinds: ["absence"] }, false],
      ["the triggering kind is chosen", "new-pacing", { kinds: ["pacing"] }, true],
      ["an unknown signal id falls back to every open signal", "not-stored", { kinds: ["absence"] }, true],
    ];
    for (const [name, signalId, config, pass] of cases) {
      it(`${name} → ${pass ? "pass" : "hold"}`, async () => {
        const r = await handler(t.ctx(), { trigger: bySignal(signalId), rule_id: 1, negate: false }, configOf(spec, config));
        assert.equal(r.pass, pass, r.reason);
      });
    }
  });

  it("accepts a v1 config migrated to v2 (kind and min_severity)", async () => {
    await openPacing(t);
    const { migrateConfig } = await import("../../../../nodes/_kit/config");
    const v2 = migrateConfig(spec, { kind: "pacing", min_severity: "emergency" }, 1);
    const r = await handler(t.ctx(), { trigger: trigger(), rule_id: 1, negate: false }, configOf(spec, v2));
    assert.deepEqual(r, { pass: false, reason: "dementia_signal: no unacknowledged pacing signal at emergency or above" });
  });
});
