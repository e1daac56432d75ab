/**
 * The parts' change watcher on a ManualClock, without an app: one change event per change of
 * state however many ticks pass (a camera silent for two hours is told late once and silent
 * once), each with the exact time the state began; its return is one more; a link reported down
 * goes late then down, and up is one "ok". A part first seen is only noted.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import type { PartChangeEvent } from "../../../../runtime/platform/core/event-bus";
import { PartsBoard, SAMPLE_EVERY_MS } from "../../../../runtime/platform/health/parts-board";
import { watchPartChanges } from "../../../../runtime/platform/health/parts-watch";

const MINUTE = 60_000;
const at = (ms: number) => new Date(ms).toISOString();

describe("the parts' change watcher", () => {
  const start = Date.parse("2026-03-02T08:00:00Z");
  let clock: ManualClock;
  let board: PartsBoard;
  let changes: PartChangeEvent[];
  let stops: Array<() => unknown>;

  beforeEach(() => {
    clock = new ManualClock(start);
    board = new PartsBoard(clock);
    changes = [];
    board.contact("device:kitchen_cam", "camera", "Kitchen camera", 5);
    board.link("hub", "hub", "Home hub", 2 * MINUTE);
    stops = [board.start(), watchPartChanges(board, (c) => changes.push(c))];
  });
  afterEach(async () => {
    for (const stop of stops) await stop();
  });

  const seen = () => changes.map((c) => `${c.part_id} ${c.from}->${c.to} since ${c.since}`);

  it("tells a camera's silence once however long it lasts, and its return once", () => {
    board.seen("device:kitchen_cam", "camera", "Kitchen camera");
    clock.advance(2 * 60 * MINUTE);
    assert.deepEqual(seen(), [
      `device:kitchen_cam ok->late since ${at(start + 5 * MINUTE)}`,
      `device:kitchen_cam late->silent since ${at(start + 15 * MINUTE)}`,
    ]);
    const silent = changes[1];
    assert.equal(silent.last_seen, at(start));
    assert.equal(silent.kind, "camera");
    assert.equal(silent.name, "Kitchen camera");

    board.seen("device:kitchen_cam", "camera", "Kitchen camera");
    const back = clock.now();
    clock.advance(SAMPLE_EVERY_MS);
    assert.equal(changes.length, 3);
    assert.deepEqual([changes[2].from, changes[2].to, changes[2].since, changes[2].previous_last_seen], ["silent", "ok", at(back), at(start)]);
    clock.advance(4 * MINUTE);
    assert.equal(changes.length, 3, "posting within its cadence, nothing more");
  });

  it("a link down is late, then down after its grace; up is ok, each once", () => {
    const hub = () => changes.filter((c) => c.part_id === "hub");
    board.report("hub", false, "the hub's WebSocket is disconnected");
    clock.advance(30 * MINUTE);
    assert.deepEqual(
      hub().map((c) => `${c.from}->${c.to}`),
      ["ok->late", "late->down"],
    );
    assert.equal(hub()[1].detail, "the hub's WebSocket is disconnected");
    board.report("hub", true);
    clock.advance(SAMPLE_EVERY_MS);
    assert.deepEqual(
      hub().map((c) => `${c.from}->${c.to}`),
      ["ok->late", "late->down", "down->ok"],
    );
  });

  it("notes a part first seen (a device unknown until it calls) without telling a change", () => {
    board.seen("device:new", "terminal", "New terminal");
    clock.advance(10 * MINUTE);
    assert.deepEqual(
      changes.filter((c) => c.part_id === "device:new"),
      [],
    );
  });
});
