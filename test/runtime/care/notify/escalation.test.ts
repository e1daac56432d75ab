import assert from "node:assert/strict";
import { checkConfig } from "../../../../nodes/_kit/config";
import { handler } from "../../../../nodes/steps/notification/notification.handler";
import { spec } from "../../../../nodes/steps/notification/notification.node";
import { actOnAlert, createAlert, getAlert, listAlerts } from "../../../../runtime/household/alerts/alerts.service";
import { startEscalation, type EscalationHandle } from "../../../../runtime/care/notify/escalation";
import { MIN, notificationInput, notifyEnv, T0, type NotifyEnv } from "./notify-support";

describe("escalation", function () {
  this.timeout(30_000);
  let env: NotifyEnv;
  let esc: EscalationHandle;
  beforeEach(async () => {
    env = await notifyEnv();
    esc = startEscalation(env.ctx);
    await esc.settled();
  });
  afterEach(async () => {
    await esc.stop();
    await env.close();
  });

  async function notify(level: string, text: string): Promise<number | undefined> {
    const check = checkConfig(spec, { alert_level: level, channels: ["pwa_popup_text"], message_template: text });
    assert.ok(check.ok);
    await handler(env.hctx(), notificationInput({}), check.config as never);
    await esc.settled();
    const [alert] = await listAlerts(env.ctx, { limit: 1, offset: 0 });
    return alert?.id;
  }

  const advance = async (minutes: number) => {
    env.clock.advance(minutes * MIN);
    await esc.settled();
  };
  const messages = () => env.hub.frames.map((f) => `${f.type}:${f.message}`);

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
    await actOnAlert(env.ctx, id, { action: "dismiss" }, "daughter");
    await esc.settled();
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

  it("re-arms from the table on start, counts the next repetition from now after an outage, and a second start sends nothing twice", async () => {
    const id = (await notify("emergency", "Smoke")) as number;
    await esc.stop();
    env.clock.advance(12 * MIN); // the process was down at 5 and 10 minutes
    esc = startEscalation(env.ctx);
    const twin = startEscalation(env.ctx);
    assert.equal(twin, esc, "one escalator per app");
    await esc.settled();
    await advance(0);
    assert.equal(env.hub.frames.length, 2, "one overdue re-send, not a burst");
    const alert = await getAlert(env.ctx, id);
    assert.equal(alert.escalation_count, 1);
    assert.equal(alert.next_escalation_at, new Date(T0 + 17 * MIN).toISOString());
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
    assert.deepEqual(env.hub.frames, [{ type: "emergency", message: "Fall detected", room: "Hall" }]);
    assert.equal((await getAlert(env.ctx, alert.id)).escalation_count, 1);
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

    it("a re-send that could not read the store when it fell due is tried again 15 s later", async () => {
      const id = (await notify("emergency", "Rose fell")) as number;
      const restore = storeDown();
      await advance(5);
      assert.equal(env.hub.frames.length, 1, "nothing could be sent");
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
