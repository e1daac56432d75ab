/**
 * The parts board on a ManualClock, without an app: a device with no cadence stays ok, a device
 * never heard from goes late counting from when it became known, a link reported down is late
 * then down after its grace (or at once when it failed a send), gauges follow their readings (a full disk from a fake free-space
 * reader), and the summary names the worst.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { SAMPLE_EVERY_MS, PartsBoard, type PartView } from "../../../../runtime/platform/health/parts-board";
import { DISK_DOWN_BYTES, DISK_LATE_BYTES, judgeDiskFree } from "../../../../runtime/platform/health/gauges";

const MINUTE = 60_000;

describe("the parts board", () => {
  const start = Date.parse("2026-03-02T08:00:00Z");
  const at = (ms: number) => new Date(ms).toISOString();
  const byId = (board: PartsBoard): Record<string, PartView> => Object.fromEntries(board.list().map((p) => [p.id, p]));

  it("a device without a cadence is ok however long it is quiet; one never heard from goes late from when it was known", () => {
    const clock = new ManualClock(start);
    const board = new PartsBoard(clock);
    board.contact("device:cam", "camera", "Kitchen camera", null);
    board.contact("device:display", "display", "Hall display", 10);
    clock.advance(10 * MINUTE);
    const parts = byId(board);
    assert.equal(parts["device:cam"].state, "ok");
    assert.equal(parts["device:cam"].last_seen, null);
    assert.equal(parts["device:display"].state, "late");
    assert.equal(parts["device:display"].since, at(start + 10 * MINUTE));
    assert.match(parts["device:display"].detail ?? "", /not heard from/);
  });

  it("a device not known from a key joins on its first call, without a cadence", () => {
    const clock = new ManualClock(start);
    const board = new PartsBoard(clock);
    board.seen("device:new", "terminal", "New terminal");
    clock.advance(60 * MINUTE);
    const p = byId(board)["device:new"];
    assert.deepEqual([p.state, p.last_seen, p.expect_every_minutes], ["ok", at(start), null]);
  });

  it("a link that failed a send is down at once, saying why, until it is next seen up; unknown parts are left alone", () => {
    const clock = new ManualClock(start);
    const board = new PartsBoard(clock);
    board.link("chat", "chat", "Chat bot", 5 * MINUTE);
    board.report("chat", false, "the bot token was refused (401)");
    assert.equal(byId(board).chat.state, "late", "a link's blip has its grace");
    clock.advance(MINUTE);
    board.failed("chat", "Family chat: Anna: the bot token was refused (401)");
    let chat = byId(board).chat;
    assert.equal(chat.state, "down");
    assert.equal(chat.since, at(start + MINUTE));
    assert.equal(chat.detail, "Family chat: Anna: the bot token was refused (401)");
    board.report("chat", false, "the bot token was refused (401)");
    assert.equal(byId(board).chat.state, "down", "still down while it keeps failing");
    clock.advance(MINUTE);
    board.report("chat", true);
    chat = byId(board).chat;
    assert.equal(chat.state, "ok");
    assert.equal(chat.since, at(start + 2 * MINUTE));
    board.failed("webhook", "no such part");
    assert.equal(byId(board).webhook, undefined);
  });

  it("a link reported down is late, down after its grace, and ok since it came back", () => {
    const clock = new ManualClock(start);
    const board = new PartsBoard(clock);
    board.link("chat", "chat", "Chat bot", 5 * MINUTE);
    board.report("chat", true);
    clock.advance(MINUTE);
    board.report("chat", false, "401 Unauthorized");
    clock.advance(MINUTE);
    board.report("chat", false, "401 Unauthorized"); // still down: counted from the first
    assert.deepEqual([byId(board).chat.state, byId(board).chat.since], ["late", at(start + MINUTE)]);
    clock.advance(4 * MINUTE);
    assert.deepEqual([byId(board).chat.state, byId(board).chat.since, byId(board).chat.detail], ["down", at(start + 6 * MINUTE), "401 Unauthorized"]);
    assert.deepEqual(board.summary(), { state: "down", counts: { ok: 0, late: 0, silent: 0, down: 1 }, not_ok: ["chat"] });
    board.report("chat", true);
    assert.deepEqual([byId(board).chat.state, byId(board).chat.since], ["ok", at(clock.now())]);
  });

  it("a gauge follows its readings; a full disk is down, a nearly full one late", async () => {
    const clock = new ManualClock(start);
    const board = new PartsBoard(clock);
    let free = 10 * DISK_LATE_BYTES;
    board.gauge("disk", "disk", "Free disk", () => Promise.resolve(judgeDiskFree(free)));
    await board.sample();
    assert.equal(byId(board).disk.state, "ok");
    free = DISK_LATE_BYTES - 1;
    clock.advance(MINUTE);
    await board.sample();
    assert.deepEqual([byId(board).disk.state, byId(board).disk.since], ["late", at(start + MINUTE)]);
    free = DISK_DOWN_BYTES - 1;
    clock.advance(MINUTE);
    await board.sample();
    assert.equal(byId(board).disk.state, "down");
    assert.match(byId(board).disk.detail ?? "", /MiB free/);
  });

  it("a gauge whose measure throws is down, saying why", async () => {
    const board = new PartsBoard(new ManualClock(start));
    board.gauge("database", "database", "Database", () => Promise.reject(new Error("SQLITE_FULL")));
    await board.sample();
    assert.deepEqual([byId(board).database.state, byId(board).database.detail], ["down", "SQLITE_FULL"]);
  });

  it("a gauge that never answers is down after its time, and the links are still probed after it", async () => {
    const board = new PartsBoard(new ManualClock(start), 50);
    let hubUp = true;
    board.gauge("disk", "disk", "Free disk", () => new Promise(() => undefined)); // a hung disk
    board.link("hub", "hub", "Home hub", 60_000, () => ({ up: hubUp, detail: "disconnected" }));
    await board.sample();
    assert.deepEqual([byId(board).disk.state, byId(board).disk.detail], ["down", "no answer within 0.05 s"]);
    hubUp = false;
    await board.sample();
    assert.equal(byId(board).hub.state, "late", "the next round probed the hub");
  });

  it("a sample asked for while a round is measuring measures again after it, once for all who asked", async () => {
    const board = new PartsBoard(new ManualClock(start), 60_000);
    let free = 5 * 1024 ** 3;
    let calls = 0;
    let first!: () => void;
    board.gauge("disk", "disk", "Free disk", async () => {
      calls++;
      const measured = free; // read when the round starts
      if (calls === 1) await new Promise<void>((r) => (first = r)); // the round under way, slow
      return judgeDiskFree(measured);
    });
    const under = board.sample();
    free = 1; // the disk fills while that round measures
    const asked = [board.sample(), board.sample()];
    first();
    await under;
    await Promise.all(asked);
    assert.equal(byId(board).disk.state, "down", "the reading is one taken after the asks");
    assert.equal(calls, 2, "one more round for both asks");
    await board.sampled();
  });

  it("probes the links at every tick, also while a gauge of the last round is still measuring", async () => {
    const clock = new ManualClock(start);
    const board = new PartsBoard(clock, 60_000);
    let hubUp = true;
    let answer!: (r: { state: "ok"; detail: string }) => void;
    board.gauge("database", "database", "Database", () => new Promise((r) => (answer = r))); // slow on a busy box
    board.link("hub", "hub", "Home hub", 60_000, () => ({ up: hubUp, detail: "disconnected" }));
    const stop = board.start();
    hubUp = false;
    clock.advance(SAMPLE_EVERY_MS);
    assert.equal(byId(board).hub.state, "late", "the tick found the hub gone, though the database was still being measured");
    assert.equal(byId(board).hub.since, new Date(start + SAMPLE_EVERY_MS).toISOString());
    answer({ state: "ok", detail: "written in 2 ms" });
    await stop();
  });
});
