/**
 * A web app that connects (a tablet back after a restart or a lost Wi-Fi) is shown the
 * warnings and emergencies nobody has taken on, as their popups showed them, oldest first;
 * not the resolved or assisted ones, not other levels, not alerts that never went to the popup,
 * and not those its own screen has put away (OK): a popup put away on a tablet stays away there,
 * on reconnecting, by its re-sends and after a restart, while other tablets still show it and
 * the alert stays open for the family.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { createApp, type CareflowApp } from "../../../../../runtime/app/app";
import { appHandlerContext } from "../../../../support/app-handler-context";
import { alertPlan } from "../../../../../runtime/care/services/notify/alert-plan";
import { registeredChannel } from "../../../../../runtime/care/services/notify/channels";
import { dispatch } from "../../../../../runtime/care/services/notify/dispatch";
import { actOnAlert, createAlert, escalationRow, storeAlertNotification } from "../../../../../runtime/household/alerts/alerts.service";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { createLogger } from "../../../../../runtime/platform/core/logger";
import { eventually } from "../../../../support/eventually";
import { migratedDatabase, type TestDatabase } from "../../../../support/test-db";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../../support/test-app";

interface Frame {
  type: string;
  message?: string;
  room?: string | null;
  alert_id?: number;
  [k: string]: unknown;
}

interface Screen {
  frames: Frame[];
  send(frame: Frame): void;
  close(): void;
}

const connect = async (baseUrl: string, key: string, tablet?: string): Promise<Screen> => {
  const frames: Frame[] = [];
  const ws = new WebSocket(`${baseUrl.replace("http", "ws")}/ws${tablet ? `?tablet=${tablet}` : ""}`, [key]);
  ws.on("message", (d) => frames.push(JSON.parse(String(d)) as Frame));
  await new Promise((r) => ws.once("open", r));
  return { frames, send: (f) => ws.send(JSON.stringify(f)), close: () => ws.close() };
};
const popups = (frames: Frame[]) => frames.filter((f) => f.type === "warning" || f.type === "emergency");

const plan = (level: string, channels: string[], text: string, room: string | null = "Bathroom") =>
  JSON.stringify({
    alert_level: level,
    channels,
    messages: Object.fromEntries(channels.map((c) => [c, text])),
    room_name: room,
    image_url: null,
    execution_id: null,
    options: {},
    escalation: null,
  });

describe("open alerts shown to a web app that connects", function () {
  this.timeout(20_000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("shows each unattended warning and emergency once, as its popup said it, oldest first", async () => {
    const ctx = t.app.ctx;
    // An emergency raised without a stored notification: its description through its level's channels.
    const fall = await createAlert(ctx, { alert_type: "fall", level: "emergency", description: "Rose may have fallen", room_name: "Kitchen" });
    const warning = await createAlert(ctx, { alert_type: "bathroom", level: "warning", description: "stored text wins" });
    await storeAlertNotification(ctx, warning.id, plan("warning", ["pwa_popup_text", "chat_app"], "Rose has been in the bathroom for 40 minutes"));
    // Not shown: resolved, assisted, another level, and one that never went to the popup.
    const resolved = await createAlert(ctx, { alert_type: "fall", level: "emergency", description: "already dismissed" });
    await actOnAlert(ctx, resolved.id, { action: "dismiss" }, "daughter");
    const assisted = await createAlert(ctx, { alert_type: "fall", level: "emergency", description: "a neighbour is on it" });
    await actOnAlert(ctx, assisted.id, { action: "assist" }, "neighbour");
    await createAlert(ctx, { alert_type: "note", level: "info", description: "just so you know" });
    const chatOnly = await createAlert(ctx, { alert_type: "door", level: "warning", description: "front door open" });
    await storeAlertNotification(ctx, chatOnly.id, plan("warning", ["chat_app"], "front door open"));
    // The last one shown: everything before it has been sent by the time it arrives.
    const last = await createAlert(ctx, { alert_type: "door", level: "warning", description: "back door open" });

    const client = await connect(t.baseUrl, KEYS.caregiver);
    try {
      await eventually("the last open alert shown", () => popups(client.frames).some((f) => f.alert_id === last.id));
      assert.equal(client.frames[0]?.type, "welcome", "the welcome comes first");
      assert.deepEqual(popups(client.frames), [
        { type: "emergency", message: "Rose may have fallen", room: "Kitchen", alert_id: fall.id },
        { type: "warning", message: "Rose has been in the bathroom for 40 minutes", room: "Bathroom", alert_id: warning.id },
        { type: "warning", message: "back door open", room: null, alert_id: last.id },
      ]);
    } finally {
      client.close();
    }
    // Showing it again is not a send: nothing is added to the alert's history.
    const history = await ctx.db("alert_history").where({ alert_id: warning.id });
    assert.deepEqual(history, []);
  });

  it("stops showing an alert once someone has taken it on", async () => {
    const open = (await t.get("/api/v1/alerts?resolved=false")).body as Array<{ id: number; level: string }>;
    for (const a of open) if (a.level === "emergency" || a.level === "warning") await actOnAlert(t.app.ctx, a.id, { action: "dismiss" }, "daughter");
    // Raised after them: had the others been shown, they would have come first.
    const fresh = await createAlert(t.app.ctx, { alert_type: "door", level: "warning", description: "garage open" });
    const client = await connect(t.baseUrl, KEYS.caregiver);
    try {
      await eventually("the open alert shown", () => popups(client.frames).length > 0);
      assert.deepEqual(popups(client.frames), [{ type: "warning", message: "garage open", room: null, alert_id: fresh.id }]);
    } finally {
      client.close();
    }
  });
});

describe("a popup put away on a tablet", function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let app: CareflowApp;
  let baseUrl: string;
  let family: number; // the family's warning, put away on the kitchen tablet
  let other: number; // an emergency raised after it, never put away

  const start = async (): Promise<void> => {
    app = await createApp({
      config: { port: 0, dataDir: db.dataDir, databaseUrl: db.databaseUrl, settingsFile: undefined, settings: buildSettings({ auth: testAuthSettings() }) },
      log: createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent"),
      nodeRed: false,
    });
    baseUrl = `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}`;
  };
  /** Connects and waits for the replay's last popup (`other`, the newest): all it sends has come. */
  const settled = async (tablet: string): Promise<Screen> => {
    const s = await connect(baseUrl, KEYS.webapp, tablet);
    await eventually("the newest open alert shown", () => popups(s.frames).some((f) => f.alert_id === other));
    return s;
  };
  const shownIds = (s: Screen) => popups(s.frames).map((f) => f.alert_id);

  before(async () => {
    db = await migratedDatabase();
    await start();
  });
  after(async () => {
    await app?.close();
    await db.drop();
  });

  it("is not shown there again on reconnecting nor by its re-sends; another tablet still shows it; the alert stays open", async () => {
    const ctx = app.ctx;
    const warning = await createAlert(ctx, {
      alert_type: "night",
      level: "warning",
      description: "Rose is up and walking at night",
      next_escalation_at: "2099-01-01T00:10:00.000Z",
    });
    family = warning.id;
    await storeAlertNotification(ctx, family, plan("warning", ["pwa_popup_text", "chat_app"], "Rose is up and walking at night", null));
    other = (await createAlert(ctx, { alert_type: "fall", level: "emergency", description: "Rose may have fallen" })).id;
    const before = await escalationRow(ctx, family);

    const kitchen = await settled("kitchen-tablet-0001");
    assert.deepEqual(shownIds(kitchen), [family, other]);
    kitchen.send({ type: "popup_dismiss", alert_id: family });
    await eventually("the dismissal confirmed", () => kitchen.frames.some((f) => f.type === "popup_dismissed" && f.alert_id === family));

    // A re-send of both alerts, as escalation sends it: the kitchen tablet gets only the other one.
    const resend = async (id: number) => {
      const row = (await escalationRow(ctx, id))!;
      await dispatch(
        { hctx: appHandlerContext(ctx), notifications: ctx.settings.notifications },
        { ...alertPlan(ctx.settings, row), channels: ["pwa_popup_text"] },
        {},
        registeredChannel,
        null,
        {
          id,
          escalation: 1,
        },
      );
    };
    const bedroom = await settled("bedroom-tablet-0002");
    kitchen.frames.length = 0;
    bedroom.frames.length = 0;
    await resend(family);
    await resend(other);
    await eventually("the re-sends reach the bedroom tablet", () => shownIds(bedroom).length === 2);
    await eventually("the other re-send reaches the kitchen tablet", () => shownIds(kitchen).length > 0);
    assert.deepEqual(shownIds(bedroom), [family, other], "the other tablet still shows both");
    assert.deepEqual(shownIds(kitchen), [other], "the put-away popup's re-send skipped the kitchen tablet");
    kitchen.close();
    bedroom.close();

    // Reconnecting: only what is still undismissed there comes back.
    const again = await settled("kitchen-tablet-0001");
    assert.deepEqual(shownIds(again), [other]);
    again.close();

    // The alert itself is untouched: open for the family, its re-sends still scheduled, nothing in its history.
    const after = await escalationRow(ctx, family);
    assert.equal(Boolean(after!.resolved), false);
    assert.equal(Boolean(after!.assistance_needed), false);
    assert.equal(after!.next_escalation_at, before!.next_escalation_at);
    assert.equal(after!.next_escalation_at, "2099-01-01T00:10:00.000Z");
    assert.deepEqual(await ctx.db("alert_history").where({ alert_id: family }), []);
  });

  it("stays put away on that tablet after a restart, and only there", async () => {
    await app.close();
    await start();
    const kitchen = await settled("kitchen-tablet-0001");
    assert.deepEqual(shownIds(kitchen), [other], "the kitchen tablet: only what it has not put away");
    const bedroom = await settled("bedroom-tablet-0002");
    assert.deepEqual(shownIds(bedroom), [family, other], "the bedroom tablet: both");
    kitchen.close();
    bedroom.close();
    const open = (await fetch(`${baseUrl}/api/v1/alerts?resolved=false`, { headers: { "x-api-key": KEYS.admin } }).then((r) => r.json())) as Array<{
      id: number;
    }>;
    assert.ok(
      open.some((a) => a.id === family),
      "still open for the family",
    );
  });

  it("answers a malformed or unknown dismissal with an error naming alert_id", async () => {
    const s = await settled("kitchen-tablet-0001");
    s.frames.length = 0;
    s.send({ type: "popup_dismiss", alert_id: "7" as unknown as number });
    s.send({ type: "popup_dismiss", alert_id: 999_999 });
    s.send({ type: "popup_dismiss", alert_id: other, extra: 1 });
    // Answered as each is handled (the unknown alert after a look in the store): found by what they say.
    const errors = await eventually("three errors", () => {
      const e = s.frames.filter((f) => f.type === "error");
      return e.length === 3 ? e : undefined;
    });
    const unknown = errors.find((f) => f.status === 404);
    assert.deepEqual({ alert_id: unknown?.alert_id, detail: unknown?.detail }, { alert_id: 999_999, detail: "alert_id: no alert 999999" });
    const refused = errors.filter((f) => f !== unknown).map((f) => String(f.detail));
    assert.ok(refused.some((d) => /alert_id/.test(d)) && refused.some((d) => /extra/.test(d)), refused.join(" | "));
    assert.ok(!s.frames.some((f) => f.type === "popup_dismissed"), "nothing was put away");
    s.close();
  });
});
