import assert from "node:assert/strict";
import { checkConfig } from "../../../../../nodes/_kit/config";
import { handler } from "../../../../../nodes/steps/notification/notification.handler";
import { spec } from "../../../../../nodes/steps/notification/notification.node";
import { actOnAlert, createAlert, getAlert, listAlerts } from "../../../../../runtime/household/alerts/alerts.service";
import { registeredChannel } from "../../../../../runtime/care/services/notify/channels";
import type { ChannelLookup } from "../../../../../runtime/care/services/notify/dispatch";
import { startEscalation, type EscalationHandle } from "../../../../../runtime/care/services/notify/escalation";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { captureLog } from "../../../../support/capture-log";
import { MIN, notificationInput, notifyEnv, T0, type NotifyEnv } from "./notify-support";
import { careServices } from "../../../../../runtime/care/services/care-services";

describe("escalation", function () {
  this.timeout(30_000);
  let env: NotifyEnv;
  let esc: EscalationHandle;
  beforeEach(async () => {
    env = await notifyEnv();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
  });
  afterEach(async () => {
    await esc.stop();
    await env.close();
  });

  /** A notification step's send at `level` (run 42 unless told: one alert per run and step). */
  async function notify(level: string, text: string, run = 42): Promise<number | undefined> {
    const check = checkConfig(spec, { alert_level: level, channels: ["pwa_popup_text"], message_template: text });
    assert.ok(check.ok);
    await handler(env.hctx(), notificationInput({}, { execution_id: run, idempotency_key: `${run}:5:0` }), check.config as never);
    await esc.settled();
    const [alert] = await listAlerts(env.ctx, { limit: 1, offset: 0 });
    return alert?.id;
  }

  const advance = async (minutes: number) => {
    env.clock.advance(minutes * MIN);
    await esc.settled();
  };
  const messages = () => env.hub.frames.map((f) => `${f.type}:${f.message}`);
  /** What the escalator logs from now on (it reads `ctx.log` at each line). */
  const logged = () => {
    const captured = captureLog();
    (env.ctx as { log: unknown }).log = captured.log;
    return captured;
  };

  it("re-sends an emergency every 5 minutes, 3 times, then stops", async () => {
    const id = (await notify("emergency", "Rose fell")) as number;
    assert.deepEqual(messages(), ["emergency:Rose fell"]);
    await advance(4.9);
    assert.equal(env.hub.frames.length, 1, "not before 5 minutes");
    await advance(0.1);
    assert.deepEqual(messages(), ["emergency:Rose fell", "emergency:Rose fell"]);
    let alert = await getAlert(env.ctx, id);
    assert.equal(alert.escalation_count, 1);
    assert.equal(alert.next_escalation_at, new Date(T0 + 10 * MIN).toISOString());
    await advance(5);
    await advance(5);
    assert.equal(env.hub.frames.length, 4, "first send + 3 repeats");
    alert = await getAlert(env.ctx, id);
    assert.equal(alert.escalation_count, 3);
    assert.equal(alert.next_escalation_at, null);
    await advance(60);
    assert.equal(env.hub.frames.length, 4, "nothing after repeat_count");
  });

  it("re-sends a warning every 10 minutes until dismissed", async () => {
    const id = (await notify("warning", "Bathroom 40 min")) as number;
    await advance(10);
    assert.equal(env.hub.frames.length, 2);
    const captured = logged();
    await actOnAlert(env.ctx, id, { action: "dismiss" }, "daughter");
    await esc.settled();
    assert.deepEqual(
      captured.lines.filter((l) => l.msg === "alert acknowledged; escalation stopped").map((l) => [l.alert_id, l.action]),
      [[id, "dismiss"]],
    );
    await advance(30);
    assert.equal(env.hub.frames.length, 2, "no re-send after dismiss");
    const alert = await getAlert(env.ctx, id);
    assert.equal(alert.resolved, true);
    assert.equal(alert.next_escalation_at, null);
  });

  it("assist also stops the re-sends (someone is on it)", async () => {
    const id = (await notify("emergency", "Help")) as number;
    await actOnAlert(env.ctx, id, { action: "assist" }, "neighbour");
    await esc.settled();
    // The alert shows no next re-send from the moment someone is on it, not only once it falls due.
    assert.equal((await getAlert(env.ctx, id)).next_escalation_at, null, "no re-send scheduled after assist");
    await advance(20);
    assert.equal(env.hub.frames.length, 1);
    const alert = await getAlert(env.ctx, id);
    assert.equal(alert.assistance_needed, true);
    assert.equal(alert.next_escalation_at, null);
  });

  it("info and reminder never escalate", async () => {
    await notify("info", "FYI");
    await notify("reminder", "Tablets");
    await advance(60);
    assert.equal(env.hub.frames.length, 2);
  });

  it("re-arms from the table on start, counts the next repetition from now after an outage: one overdue re-send, not a burst", async () => {
    const id = (await notify("emergency", "Smoke")) as number;
    await esc.stop();
    env.clock.advance(12 * MIN); // the process was down at 5 and 10 minutes
    const captured = logged();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    await advance(0);
    assert.equal(env.hub.frames.length, 2, "one overdue re-send, not a burst");
    const alert = await getAlert(env.ctx, id);
    assert.equal(alert.escalation_count, 1);
    assert.equal(alert.next_escalation_at, new Date(T0 + 17 * MIN).toISOString());
    assert.deepEqual(
      captured.lines.filter((l) => l.msg === "escalation re-armed for open alerts").map((l) => l.alerts),
      [1],
    );
  });

  it("a start's look for repetitions a stop cut short does not send again the overdue one it has just claimed", async () => {
    // The order a slow store gives (seen on PostgreSQL): the overdue re-send is claimed before the
    // look for unfinished repetitions reads the table, and marked sent only after it has.
    const id = (await notify("emergency", "Smoke")) as number;
    await esc.stop();
    env.clock.advance(12 * MIN);
    const db = env.ctx.db;
    let claimed!: () => void;
    const claim = new Promise<void>((resolve) => (claimed = resolve));
    let looked!: () => void;
    const look = new Promise<void>((resolve) => (looked = resolve));
    const ordered = (sql: string): { before?: Promise<void>; after?: () => void } => {
      const quoted = sql.replace(/[`"]/g, "");
      if (/^select .*escalation_count > escalation_sent/i.test(quoted)) return { before: claim, after: looked };
      if (/^update .*set escalation_count/i.test(quoted)) return { after: claimed };
      if (/^update .*set escalation_sent/i.test(quoted)) return { before: look };
      return {};
    };
    (env.ctx as { db: unknown }).db = new Proxy(db, {
      apply(target, self, args: Parameters<typeof db>) {
        const builder = Reflect.apply(target, self, args) as ReturnType<typeof db>;
        const run = builder.then.bind(builder);
        builder.then = ((onDone, onFailed) => {
          const { before, after } = ordered(builder.toString());
          return (before ?? Promise.resolve())
            .then(() => run())
            .then((result: unknown) => (after?.(), result))
            .then(onDone, onFailed);
        }) as typeof builder.then;
        return builder;
      },
    });
    try {
      esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
      await esc.settled();
    } finally {
      (env.ctx as { db: unknown }).db = db;
    }
    assert.equal(env.hub.frames.length, 2, "the overdue re-send went out once");
    assert.equal((await getAlert(env.ctx, id)).escalation_count, 1);
  });

  it("says nothing about re-arming when a start finds no open alert", async () => {
    await notify("info", "FYI");
    await esc.stop();
    const captured = logged();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    assert.deepEqual(captured.lines, []);
  });

  it("an old escalator stopped again after a restart leaves the new one the app's only escalator", async () => {
    const old = esc;
    await old.stop();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await old.stop();
    await notify("emergency", "Rose fell");
    await advance(5);
    assert.equal(env.hub.frames.length, 2, "repetition 1 sent once");
  });

  it("sends on the next start a repetition that was claimed and never sent (a kill between the two), once", async () => {
    const id = (await notify("emergency", "Rose fell")) as number;
    await esc.stop();
    // What a kill -9 right after the claim leaves: repetition 1 counted, its next time stored, nothing sent.
    await env.ctx
      .db("alerts")
      .where({ id })
      .update({ escalation_count: 1, next_escalation_at: new Date(T0 + 10 * MIN).toISOString() });
    env.clock.advance(5 * MIN);
    const captured = logged();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    await advance(0);
    assert.deepEqual(messages(), ["emergency:Rose fell", "emergency:Rose fell"], "repetition 1 sent after the restart");
    assert.deepEqual(
      captured.lines.filter((l) => l.level === 40).map((l) => [l.msg, l.alert_id, l.escalation]),
      [["escalation: a repetition was claimed but not sent before a stop; sending it now", id, 1]],
    );
    const alert = await getAlert(env.ctx, id);
    assert.deepEqual(
      [...new Set(alert.history!.filter((e) => e.channel === "pwa_popup_text" && e.event !== "sent").map((e) => e.escalation))],
      [0, 1],
      "its receipts are those of repetition 1",
    );
    assert.equal(alert.escalation_count, 1, "not counted twice");
    // A second restart finds it sent; repetition 2 comes on its schedule.
    await esc.stop();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    await advance(0);
    assert.equal(env.hub.frames.length, 2, "sent once");
    await advance(5);
    assert.equal(env.hub.frames.length, 3, "repetition 2 at 10 minutes");
    assert.equal((await getAlert(env.ctx, id)).escalation_count, 2);
  });

  it("a stop while claimed repetitions are being sent again sends no more of them; the next start sends the rest", async () => {
    const rose = (await notify("emergency", "Rose fell")) as number;
    const tom = (await notify("emergency", "Tom fell", 43)) as number;
    assert.notEqual(tom, rose);
    await esc.stop();
    // A kill right after both claims: repetition 1 of each counted, nothing sent.
    await env.ctx
      .db("alerts")
      .whereIn("id", [rose, tom])
      .update({ escalation_count: 1, next_escalation_at: new Date(T0 + 10 * MIN).toISOString() });
    env.clock.advance(5 * MIN);
    const broadcast = env.ctx.webapp.broadcast.bind(env.ctx.webapp);
    let stopping: Promise<void> | undefined;
    env.ctx.webapp.broadcast = (frame) => {
      stopping ??= esc.stop(); // careflow stops while Rose's repetition is going out
      return broadcast(frame);
    };
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    await stopping;
    env.ctx.webapp.broadcast = broadcast;
    assert.deepEqual(messages().slice(2), ["emergency:Rose fell"], "the stopped escalator sent nothing after Rose's");
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    // Rose's had reached the screen when the stop came: only Tom's is left, sent once.
    assert.deepEqual(messages().slice(3), ["emergency:Tom fell"], "the next start sends Tom's, once");
  });

  it("after a restart sends every claimed repetition, also of alerts whose level no longer repeats (settings changed since)", async () => {
    const raise = (description: string) =>
      createAlert(env.ctx, { alert_type: "fall", level: "emergency", description, room_name: "Hall", next_escalation_at: null });
    const ids = [(await raise("Rose fell")).id, (await raise("Tom fell")).id];
    await esc.stop();
    await env.ctx.db("alerts").whereIn("id", ids).update({ escalation_count: 1, escalation_sent: 0 });
    (env.ctx as { settings: unknown }).settings = buildSettings({
      notifications: { levels: { emergency: { channels: ["pwa_popup_text"], escalation_minutes: null, repeat_count: 0 } } },
    });
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    assert.deepEqual(
      env.hub.frames.map((f) => f.message),
      ["Rose fell", "Tom fell"],
    );
  });

  it("sends again after a restart the last repetition too, and nothing for an alert acknowledged meanwhile", async () => {
    const last = (await notify("emergency", "Smoke")) as number;
    const known = (
      await createAlert(env.ctx, { alert_type: "door", level: "emergency", description: "Door open", room_name: "Hall", next_escalation_at: null })
    ).id;
    assert.notEqual(known, last);
    await esc.stop();
    await env.ctx.db("alerts").where({ id: last }).update({ escalation_count: 3, next_escalation_at: null, escalation_sent: 2 });
    await env.ctx.db("alerts").where({ id: known }).update({ escalation_count: 1, escalation_sent: 0 });
    await actOnAlert(env.ctx, known, { action: "dismiss" }, "daughter");
    const before = env.hub.frames.length;
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    await advance(0);
    assert.deepEqual(messages().slice(before), ["emergency:Smoke"]);
  });

  it("an alert raised without a stored notification re-sends its description through its level's channels", async () => {
    const alert = await createAlert(env.ctx, {
      alert_type: "fall",
      level: "emergency",
      description: "Fall detected",
      room_name: "Hall",
      next_escalation_at: new Date(T0 + 5 * MIN).toISOString(),
    });
    await esc.settled();
    await advance(5);
    assert.deepEqual(env.hub.frames, [{ type: "emergency", message: "Fall detected", room: "Hall", alert_id: alert.id }]);
    assert.equal((await getAlert(env.ctx, alert.id)).escalation_count, 1);
  });

  it("sends again at the next start a re-send cut short by a stop, once", async () => {
    const id = (await notify("emergency", "Rose fell")) as number;
    await esc.stop();
    // The channel is still sending repetition 1 when careflow stops: the stop aborts it, and
    // nobody was reached.
    let stopping: Promise<void> | undefined;
    const hanging: ChannelLookup = (type) => {
      const entry = registeredChannel(type);
      if (!entry?.handler) return entry;
      return {
        ...entry,
        handler: async (hctx) => {
          stopping ??= esc.stop();
          if (!hctx.signal.aborted) await new Promise((r) => hctx.signal.addEventListener("abort", r, { once: true }));
          return { channel: type, delivered: false, detail: "stopped" };
        },
      };
    };
    esc = startEscalation(env.ctx, { services: careServices(env.ctx), lookup: hanging });
    await esc.settled();
    await advance(5);
    await stopping;
    assert.equal(env.hub.frames.length, 1, "repetition 1 reached nobody");
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    await advance(0);
    assert.deepEqual(messages(), ["emergency:Rose fell", "emergency:Rose fell"], "repetition 1 went out at the next start");
    assert.equal((await getAlert(env.ctx, id)).escalation_count, 1, "still repetition 1");
    await esc.stop();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    assert.equal(env.hub.frames.length, 2, "not a third time");
  });

  it("does not send again a re-send the stop came after: it had reached the screen", async () => {
    const id = (await notify("emergency", "Rose fell")) as number;
    const broadcast = env.ctx.webapp.broadcast.bind(env.ctx.webapp);
    let stopping: Promise<void> | undefined;
    env.ctx.webapp.broadcast = (frame) => {
      stopping ??= esc.stop(); // careflow stops while repetition 1 is going out
      return broadcast(frame);
    };
    await advance(5);
    await stopping;
    env.ctx.webapp.broadcast = broadcast;
    assert.equal(env.hub.frames.length, 2);
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    await advance(0);
    assert.deepEqual(messages(), ["emergency:Rose fell", "emergency:Rose fell"], "repetition 1 once");
    assert.equal((await getAlert(env.ctx, id)).escalation_count, 1);
    await advance(5);
    assert.equal(env.hub.frames.length, 3, "repetition 2 on its schedule");
  });

  it("gives each repetition its own idempotency key, the same when a repetition is sent again", async () => {
    const keys: Array<string | null> = [];
    const recording: ChannelLookup = (type) => {
      const entry = registeredChannel(type);
      const handler = entry?.handler;
      if (!entry || !handler) return entry;
      return { ...entry, handler: (hctx, message, config) => (keys.push(message.idempotency_key), handler(hctx, message, config)) };
    };
    await esc.stop();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx), lookup: recording });
    const id = (await notify("emergency", "Rose fell")) as number;
    await advance(5);
    await advance(5);
    // A kill after repetition 2 went out and before it was recorded sent: it goes out again at the next start.
    await env.ctx.db("alerts").where({ id }).update({ escalation_sent: 1 });
    await esc.stop();
    esc = startEscalation(env.ctx, { services: careServices(env.ctx), lookup: recording });
    await esc.settled();
    assert.deepEqual(keys, [`alert:${id}:escalation:1`, `alert:${id}:escalation:2`, `alert:${id}:escalation:2`]);
  });

  it("ends the schedule of an alert whose level now repeats fewer times than it has been sent (settings changed since)", async () => {
    const alert = await createAlert(env.ctx, {
      alert_type: "fall",
      level: "emergency",
      description: "Fall detected",
      room_name: "Hall",
      next_escalation_at: new Date(T0 + 5 * MIN).toISOString(),
    });
    await esc.settled();
    await advance(5);
    assert.equal(env.hub.frames.length, 1, "repetition 1 of the spec's 3");
    await esc.stop();
    // Restarted with the family's new settings: emergencies are sent again once only.
    const settings = buildSettings({ notifications: { levels: { emergency: { channels: ["pwa_popup_text"], escalation_minutes: 5, repeat_count: 1 } } } });
    (env.ctx as { settings: unknown }).settings = settings;
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
    await advance(30);
    assert.equal(env.hub.frames.length, 1, "no repetition 2");
    const after = await getAlert(env.ctx, alert.id);
    assert.equal(after.next_escalation_at, null, "nothing scheduled");
    assert.equal(after.escalation_count, 1);
  });

  it("warns once per alert when its re-sends reach nobody, and logs what each re-send reached", async () => {
    const captured = captureLog();
    (env.ctx as { log: unknown }).log = captured.log;
    env.hub.clients = 0; // the tablet is off, and no other channel is set up
    const id = (await notify("emergency", "Rose fell")) as number;
    await advance(5);
    await advance(5);
    env.hub.clients = 1;
    await advance(5);
    const mine = captured.lines.filter((l) => l.alert_id === id);
    const warnings = mine.filter((l) => l.level === 40);
    assert.deepEqual(
      warnings.map((l) => [l.msg, l.escalation, typeof l.warning]),
      [["escalation of an open alert reached nobody", 1, "string"]],
      "one warning for the alert, not one per repetition",
    );
    const sent = mine.filter((l) => l.msg === "alert escalated: notification sent again");
    assert.deepEqual(
      sent.map((l) => [l.escalation, l.of, l.delivered, l.next_escalation_at]),
      [
        [1, 3, [], new Date(T0 + 10 * MIN).toISOString()],
        [2, 3, [], new Date(T0 + 15 * MIN).toISOString()],
        [3, 3, ["pwa_popup_text"], null],
      ],
    );
  });

  it("a re-send whose home channel fails falls back to the tablet with the alert's id, so its OK puts the alert away", async () => {
    // A tablet is set up (its web-app key); the e-ink display the step names is not (no display).
    (env.ctx as { settings: unknown }).settings = buildSettings({
      auth: { api_keys: [{ key: "tablet-key-long-enough", name: "tablet", permissions: ["webapp"] }] },
    });
    const check = checkConfig(spec, { alert_level: "emergency", channels: ["eink"], message_template: "Rose fell" });
    assert.ok(check.ok);
    await handler(env.hctx(), notificationInput({}), check.config as never);
    await esc.settled();
    const [alert] = await listAlerts(env.ctx, { limit: 1, offset: 0 });
    const first = env.hub.frames.length;
    const captured = captureLog();
    (env.ctx as { log: unknown }).log = captured.log;
    await advance(5);
    assert.deepEqual(env.hub.frames.slice(first), [{ type: "emergency", message: "Rose fell", room: "Bathroom", alert_id: alert.id }]);
    const warnings = captured.lines.filter((l) => l.alert_id === alert.id && l.level === 40);
    assert.deepEqual(
      warnings.map((l) => l.msg),
      ["escalation of an open alert fell back"],
      "the operator's warning says it fell back, not that it reached nobody",
    );
    assert.match(String(warnings[0].warning), /^sent through Tablet popup instead, because every other channel failed \(E-ink display: /);
    const history = (await getAlert(env.ctx, alert.id)).history!.filter((e) => e.escalation === 1);
    assert.deepEqual(
      history.filter((e) => e.event !== "sent").map((e) => [e.channel, e.event]),
      [
        ["eink", "failed"],
        ["pwa_popup_text", "delivered"],
      ],
      "repetition 1's receipts: the display failed, the tablet carried it",
    );
  });

  describe("when the store fails", () => {
    // The store as a re-send meets it when the database is busy or gone: every query throws.
    const storeDown = () => {
      const db = env.ctx.db;
      (env.ctx as { db: unknown }).db = () => {
        throw new Error("SQLITE_BUSY: database is locked");
      };
      return () => void ((env.ctx as { db: unknown }).db = db);
    };

    it("an acknowledgement whose schedule could not be cleared is logged as a failure, not lost", async () => {
      const id = (await notify("emergency", "Rose fell")) as number;
      const captured = logged();
      const restore = storeDown();
      env.ctx.bus.publish("alert.acknowledged", { alert_id: id, action: "assist", actor: "neighbour" });
      await esc.settled();
      restore();
      assert.deepEqual(
        captured.lines.filter((l) => l.level === 50).map((l) => [l.msg, (l.err as { message?: string } | undefined)?.message]),
        [["escalation failed", "SQLITE_BUSY: database is locked"]],
      );
    });

    it("the next re-send is scheduled when one is claimed, not when its send finishes", async () => {
      await notify("emergency", "Rose fell");
      const broadcast = env.ctx.webapp.broadcast.bind(env.ctx.webapp);
      let slowSends = 1;
      env.ctx.webapp.broadcast = (frame) => {
        // The first re-send's channel takes a whole interval to return (a hung connection).
        if (slowSends-- > 0) env.clock.advance(5 * MIN);
        return broadcast(frame);
      };
      await advance(5);
      assert.deepEqual(messages(), ["emergency:Rose fell", "emergency:Rose fell", "emergency:Rose fell"], "the second re-send came on time");
    });

    it("a start that cannot read the store re-arms the open alerts 15 s later, so their re-sends still go out", async () => {
      await notify("emergency", "Rose fell");
      await esc.stop();
      const captured = logged();
      const restore = storeDown();
      esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
      await esc.settled();
      assert.deepEqual(
        captured.lines.filter((l) => l.level === 50).map((l) => l.msg),
        ["escalation: re-arming the open alerts failed; trying again", "escalation: sending again the repetitions a stop cut short failed; trying again"],
      );
      restore();
      env.clock.advance(15_000);
      await esc.settled();
      assert.equal(env.hub.frames.length, 1, "re-armed, not sent early");
      await advance(5);
      assert.deepEqual(messages(), ["emergency:Rose fell", "emergency:Rose fell"], "the first re-send went out on time");
    });

    it("a stop ends the start's retries", async () => {
      await notify("emergency", "Rose fell");
      await esc.stop();
      const restore = storeDown();
      esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
      await esc.settled();
      await esc.stop();
      restore();
      const captured = logged();
      await advance(10);
      assert.deepEqual(captured.lines, [], "nothing tried again after the stop");
      assert.equal(env.hub.frames.length, 1);
    });

    it("a re-send that could not read the store when it fell due is tried again 15 s later", async () => {
      const id = (await notify("emergency", "Rose fell")) as number;
      const captured = logged();
      const restore = storeDown();
      await advance(5);
      assert.equal(env.hub.frames.length, 1, "nothing could be sent");
      assert.deepEqual(
        captured.lines.filter((l) => l.level === 50).map((l) => [l.msg, l.alert_id, l.retry_at]),
        [["escalation: re-send failed; trying again", id, new Date(T0 + 5.25 * MIN).toISOString()]],
      );
      restore();
      env.clock.advance(14_000);
      await esc.settled();
      assert.equal(env.hub.frames.length, 1, "not before the retry");
      env.clock.advance(1_000);
      await esc.settled();
      assert.deepEqual(messages(), ["emergency:Rose fell", "emergency:Rose fell"]);
      const alert = await getAlert(env.ctx, id);
      assert.equal(alert.escalation_count, 1);
      assert.equal(alert.next_escalation_at, new Date(T0 + 10.25 * MIN).toISOString(), "the next counts from the retry");
    });
  });
});
