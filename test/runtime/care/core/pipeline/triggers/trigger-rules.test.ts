/**
 * A trigger's rules, kept between events: a burst of events reads them once, and what was kept
 * is dropped the moment a rule can have changed (a deploy's notice, a rule write committed
 * here, or a second gone by for a write made elsewhere).
 */
import assert from "node:assert/strict";
import knexFactory from "knex";
import type { CareContext } from "../../../../../../runtime/care/core/context";
import { TriggerRules } from "../../../../../../runtime/care/core/pipeline/triggers/trigger-rules";
import { bumpRulesVersion } from "../../../../../../runtime/care/core/rules/rules-version";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { EventBus } from "../../../../../../runtime/platform/core/event-bus";

describe("triggers: the rules a trigger keeps between events", () => {
  const db = knexFactory({ client: "better-sqlite3", connection: { filename: ":memory:" }, useNullAsDefault: true });
  let clock: ManualClock;
  let bus: EventBus;
  let reads: number;
  let failNext: boolean;
  let rules: TriggerRules;

  beforeEach(() => {
    clock = new ManualClock();
    bus = new EventBus();
    reads = 0;
    failNext = false;
    const ctx = {
      db,
      bus,
      clock,
      flows: {
        snapshot: async () => {
          reads++;
          if (failNext) {
            failNext = false;
            throw new Error("store down");
          }
          return { flows: [], index: { rules: [], steps: [], contexts: [] } };
        },
      },
    } as unknown as CareContext;
    rules = new TriggerRules(ctx, "sensor_event");
    rules.start();
  });
  afterEach(() => rules.stop());
  after(() => db.destroy());

  it("reads the rules once for a burst of events", async () => {
    await Promise.all(Array.from({ length: 500 }, () => rules.get()));
    await rules.get();
    assert.equal(reads, 1);
  });

  it("reads them again after a deploy's notice", async () => {
    await rules.get();
    bus.publish("rules.changed", {});
    await rules.get();
    assert.equal(reads, 2);
  });

  it("reads them again after a rule write this process committed", async () => {
    await rules.get();
    bumpRulesVersion(db);
    await rules.get();
    assert.equal(reads, 2);
  });

  it("reads them again a second later, for a write made on another instance that sent no notice", async () => {
    await rules.get();
    clock.advance(999);
    await rules.get();
    assert.equal(reads, 1);
    clock.advance(1);
    await rules.get();
    assert.equal(reads, 2);
  });

  it("does not keep a read that failed", async () => {
    failNext = true;
    await assert.rejects(rules.get(), /store down/);
    await rules.get();
    assert.equal(reads, 2);
  });

  it("hears no notices once stopped", async () => {
    rules.stop();
    await rules.get();
    bus.publish("rules.changed", {});
    await rules.get();
    // Stopped, it still answers, and still drops what it kept on a local write or after a second.
    bumpRulesVersion(db);
    await rules.get();
    assert.equal(reads, 2);
  });
});
