/**
 * Escalation with two instances on the machine's PostgreSQL (one ManualClock): an emergency
 * raised through one instance is re-sent once per interval by the `escalation` lease holder,
 * stops on an acknowledgement made through the other instance, and keeps its schedule (once
 * per interval, never twice) when the holder dies and the other takes over. A holder whose lease
 * runs out while it sends a repetition (stalled under load, alive) finishes it alone; one whose
 * stop cut the send short gives it back, and the new holder sends it at once.
 */
import assert from "node:assert/strict";
import { checkConfig } from "../../../../../nodes/_kit/config";
import { handler } from "../../../../../nodes/steps/notification/notification.handler";
import { spec } from "../../../../../nodes/steps/notification/notification.node";
import { careServices } from "../../../../../runtime/care/services/care-services";
import { startEscalation, type EscalationHandle } from "../../../../../runtime/care/services/notify/escalation";
import { registeredChannel } from "../../../../../runtime/care/services/notify/channels";
import type { ChannelLookup } from "../../../../../runtime/care/services/notify/dispatch";
import { actOnAlert, escalationRow, getAlert, listAlerts } from "../../../../../runtime/household/alerts/alerts.service";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { sharedPg, type SharedPg } from "../../../../support/pg-cluster";
import { kill, moveTo, startInstance, type Instance } from "../../../../support/cluster-instances";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { ADOPT_EVERY_MS } from "../../../../../runtime/platform/cluster/adopt";
import { captureLog } from "../../../../support/capture-log";
import { eventually } from "../../../../support/eventually";
import { MIN, notificationInput, T0 } from "./notify-support";

const LEASE_MS = 60_000;

describe("escalation under a lease, two instances", function () {
  this.timeout(120_000);
  let pg: SharedPg;
  let t: TestApp;
  const clock = new ManualClock(T0);
  const escalations: EscalationHandle[] = [];
  let a: Instance;
  let b: Instance;
  /** Per instance: a gate its escalator's sends wait at (until opened, or until its stop aborts them). */
  const gates = new Map<string, Promise<void>>();
  const gated =
    (id: string): ChannelLookup =>
    (type) => {
      const entry = registeredChannel(type);
      const deliver = entry?.handler;
      if (!entry || !deliver) return entry;
      return {
        ...entry,
        handler: async (hctx, message, config) => {
          const gate = gates.get(id);
          if (gate) await Promise.race([gate, new Promise((r) => hctx.signal.addEventListener("abort", r, { once: true }))]);
          if (hctx.signal.aborted) return { channel: type, delivered: false, detail: "stopped" };
          return deliver(hctx, message, config);
        },
      };
    };

  before(async function () {
    pg = await sharedPg(this);
    t = await startTestApp({ clock });
    a = await startInstance(pg, t.app.ctx, clock, "a", LEASE_MS);
    b = await startInstance(pg, t.app.ctx, clock, "b", LEASE_MS);
    for (const i of [a, b]) {
      const esc = startEscalation(i.ctx, { services: careServices(i.ctx), lookup: gated(i.id) });
      escalations.push(esc);
      i.settle = () => esc.settled();
    }
    await moveTo(clock, T0, [a, b]);
  });
  after(async () => {
    for (const e of escalations) await e.stop().catch(() => undefined);
    for (const i of [a, b]) await i?.leases.stop().catch(() => undefined);
    await t?.close();
    await pg?.drop();
  });

  /** An emergency raised through `i` (its first send goes to i's clients). */
  let runs = 100;
  const raise = async (i: Instance, text: string): Promise<number> => {
    const run = runs++;
    const check = checkConfig(spec, { alert_level: "emergency", channels: ["pwa_popup_text"], message_template: text });
    assert.ok(check.ok);
    await handler(
      { clock, log: i.ctx.log, services: careServices(i.ctx), signal: new AbortController().signal },
      notificationInput({}, { execution_id: run, idempotency_key: `${run}:5:0` }),
      check.config as never,
    );
    const [alert] = await listAlerts(i.ctx, { limit: 1, offset: 0 });
    return alert.id;
  };
  const sent = (i: Instance, text: string): number => i.frames.filter((f) => f.message === text).length;
  /** The instance holding the lease, and the other one. */
  const roles = (): [Instance, Instance] => (a.leases.holds("escalation") ? [a, b] : [b, a]);

  it("re-sends from the holder once per interval and stops on an assist made through the other instance", async () => {
    const [holder, other] = roles();
    assert.ok(holder.leases.holds("escalation") && !other.leases.holds("escalation"), "one holder");
    const start = clock.now();
    const id = await raise(other, "Rose fell");
    assert.equal(sent(other, "Rose fell"), 1, "the first send, from the instance that raised it");
    await moveTo(clock, start + 5 * MIN + 1000, [a, b]);
    assert.equal(sent(holder, "Rose fell"), 1, "the first repetition, from the holder");
    await moveTo(clock, start + 10 * MIN + 1000, [a, b]);
    assert.equal(sent(holder, "Rose fell"), 2);
    await actOnAlert(other.ctx, id, { action: "assist" }, "caregiver");
    await moveTo(clock, start + 30 * MIN, [a, b]);
    assert.equal(sent(holder, "Rose fell"), 2, "nothing after the assist");
    assert.equal(sent(other, "Rose fell"), 1);
    const after = await getAlert(other.ctx, id);
    assert.equal(after.escalation_count, 2);
    assert.equal(after.next_escalation_at, null, "the holder ended the schedule: the alert shows no re-send pending");
  });

  it("logs a schedule read that failed, and re-sends on time an alert raised meanwhile once the store answers again", async () => {
    const [holder, other] = roles();
    const start = clock.now();
    const { db, log } = holder.ctx;
    const captured = captureLog();
    Object.assign(holder.ctx, { log: captured.log, db: () => Promise.reject(new Error("Connection terminated unexpectedly")) });
    try {
      const id = await raise(other, "Ann fell");
      clock.advance(ADOPT_EVERY_MS);
      await holder.settle();
      assert.ok(
        captured.lines.some((l) => l.level === 50 && l.msg === "escalation: reading the schedule failed" && l.err),
        JSON.stringify(captured.lines.map((l) => l.msg)),
      );
      Object.assign(holder.ctx, { db });
      await moveTo(clock, start + 5 * MIN + 1000, [a, b]);
      assert.equal(sent(holder, "Ann fell"), 1, "repetition 1 on time");
      assert.equal((await getAlert(other.ctx, id)).escalation_count, 1);
    } finally {
      Object.assign(holder.ctx, { db, log });
    }
  });

  /**
   * An emergency raised through the other instance, and the holder's send of its first
   * repetition held at a gate; the escalation lease then runs out (as a stalled holder's would)
   * and the other instance takes it over. Returns the alert and the gate's opener.
   */
  const repetitionHeldAtHandover = async (holder: Instance, other: Instance, text: string): Promise<{ id: number; open: () => void }> => {
    const start = clock.now();
    const id = await raise(other, text);
    await moveTo(clock, start + 5 * MIN - 1000, [a, b]);
    let open!: () => void;
    gates.set(holder.id, new Promise<void>((r) => (open = r)));
    clock.set(start + 5 * MIN + 1000);
    await eventually("the holder's claim of repetition 1", async () => (await escalationRow(other.ctx, id))?.escalation_count === 1);
    await other.ctx.db("cluster_leases").where({ name: "escalation" }).update({ expires_at: clock.now() });
    await other.leases.tick();
    await other.leases.settled();
    assert.ok(other.leases.holds("escalation"), "the other instance took the lease over");
    return { id, open };
  };

  it("leaves a repetition to a holder whose lease ran out while it sent it: sent once, by that holder", async () => {
    const [holder, other] = roles();
    const { id, open } = await repetitionHeldAtHandover(holder, other, "Eve fell");
    await other.settle();
    assert.equal(sent(other, "Eve fell"), 1, "the new holder leaves alone a repetition its claimant may still be sending");
    open();
    gates.delete(holder.id);
    await holder.settle();
    assert.equal(sent(holder, "Eve fell"), 1, "the old holder finished its send");
    clock.advance(ADOPT_EVERY_MS);
    await other.settle();
    await moveTo(clock, clock.now() + LEASE_MS, [a, b]);
    assert.equal(sent(other, "Eve fell"), 1, "nor sends it once finished");
    assert.equal(sent(holder, "Eve fell"), 1);
    assert.equal((await escalationRow(other.ctx, id))?.escalation_sent, 1);
    await actOnAlert(other.ctx, id, { action: "dismiss" }, "caregiver");
  });

  it("sends at once a repetition the old holder's stop cut short, which it gave back", async () => {
    const [holder, other] = roles();
    const { id } = await repetitionHeldAtHandover(holder, other, "Max fell");
    // The old holder's next round finds the lease gone: its stop aborts the held send.
    await holder.leases.tick();
    await holder.leases.settled();
    await holder.settle();
    gates.delete(holder.id);
    assert.equal(sent(holder, "Max fell"), 0);
    assert.equal((await escalationRow(other.ctx, id))?.escalation_claimed_by, null, "the cut-short claim was given back");
    clock.advance(ADOPT_EVERY_MS);
    await other.settle();
    assert.equal(sent(other, "Max fell"), 2, "the first send and repetition 1, within a second of the handover");
    await moveTo(clock, clock.now() + LEASE_MS, [a, b]);
    assert.equal(sent(other, "Max fell"), 2, "once");
    assert.equal((await escalationRow(other.ctx, id))?.escalation_sent, 1);
    await actOnAlert(other.ctx, id, { action: "dismiss" }, "caregiver");
  });

  it("sends a repetition whose claimant died mid-send once it has been silent two leases, once", async () => {
    const [holder, other] = roles();
    const start = clock.now();
    const id = await raise(other, "Kim fell");
    // A holder killed -9 between its claim of repetition 1 and the send: its claim stays, and so
    // does its last heartbeat (it expired a second later).
    await other.ctx
      .db("alerts")
      .where({ id })
      .update({ escalation_count: 1, escalation_sent: 0, escalation_claimed_by: "ghost", next_escalation_at: new Date(start + 30 * MIN).toISOString() });
    await other.ctx
      .db("cluster_instances")
      .insert({ instance_id: "ghost", host: "gone", pid: 1, started_at: start, heartbeat_at: start, expires_at: start + 1000 });
    const graceMs = 2 * holder.ctx.settings.cluster.lease_seconds * 1000;
    try {
      await moveTo(clock, start + 1000 + graceMs - ADOPT_EVERY_MS / 2, [a, b]);
      assert.equal(sent(holder, "Kim fell"), 0, "not while the claimant may still be sending it");
      await moveTo(clock, start + 1000 + graceMs + ADOPT_EVERY_MS, [a, b]);
      assert.equal(sent(holder, "Kim fell"), 1, "sent once its claimant was silent two leases");
      const row = await escalationRow(other.ctx, id);
      assert.deepEqual([row?.escalation_claimed_by, row?.escalation_sent], [holder.id, 1], "taken over, then finished");
      await moveTo(clock, clock.now() + 5 * ADOPT_EVERY_MS, [a, b]);
      assert.equal(sent(holder, "Kim fell") + sent(other, "Kim fell"), 2, "the first send and repetition 1, once");
    } finally {
      await other.ctx.db("cluster_instances").where({ instance_id: "ghost" }).delete();
      await actOnAlert(other.ctx, id, { action: "dismiss" }, "caregiver");
    }
  });

  it("keeps to once per interval when the holder dies and the other instance takes over", async () => {
    const [holder, other] = roles();
    const start = clock.now();
    const id = await raise(other, "Tom fell");
    await moveTo(clock, start + 5 * MIN + 1000, [a, b]);
    assert.equal(sent(holder, "Tom fell"), 1);
    await kill(holder); // between the first and second repetitions
    await moveTo(clock, start + 10 * MIN + 1000, [a, b]);
    assert.ok(other.leases.holds("escalation"));
    assert.equal(sent(other, "Tom fell"), 2, "the first send and the second repetition");
    await moveTo(clock, start + 30 * MIN, [a, b]);
    assert.equal(sent(holder, "Tom fell") + sent(other, "Tom fell") - 1, 3, "three repetitions in all, none doubled");
    assert.equal((await getAlert(other.ctx, id)).escalation_count, 3);
  });
});
