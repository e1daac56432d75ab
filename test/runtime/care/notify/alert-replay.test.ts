/**
 * A web app that connects (a tablet back after a restart or a lost Wi-Fi) is shown the
 * warnings and emergencies nobody has taken on, as their popups showed them, oldest first;
 * not the resolved or assisted ones, not other levels, not alerts that never went to the popup.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { actOnAlert, createAlert, storeAlertNotification } from "../../../../runtime/household/alerts/alerts.service";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

interface Frame {
  type: string;
  message?: string;
  room?: string | null;
}

describe("open alerts shown to a web app that connects", function () {
  this.timeout(20_000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const connect = async (): Promise<{ frames: Frame[]; close(): void }> => {
    const frames: Frame[] = [];
    const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`, [KEYS.caregiver]);
    ws.on("message", (d) => frames.push(JSON.parse(String(d)) as Frame));
    await new Promise((r) => ws.once("open", r));
    return { frames, close: () => ws.close() };
  };
  const popups = (frames: Frame[]) => frames.filter((f) => f.type === "warning" || f.type === "emergency");
  const settle = () => new Promise((r) => setTimeout(r, 300));

  it("shows each unattended warning and emergency once, as its popup said it, oldest first", async () => {
    const ctx = t.app.ctx;
    const plan = (level: string, channels: string[], text: string) =>
      JSON.stringify({
        alert_level: level,
        channels,
        messages: Object.fromEntries(channels.map((c) => [c, text])),
        room_name: "Bathroom",
        image_url: null,
        execution_id: null,
        options: {},
        escalation: null,
      });
    // An emergency raised without a stored notification: its description through its level's channels.
    await createAlert(ctx, { alert_type: "fall", level: "emergency", description: "Rose may have fallen", room_name: "Kitchen" });
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

    const client = await connect();
    try {
      const until = Date.now() + 5000;
      while (popups(client.frames).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      await settle();
      assert.equal(client.frames[0]?.type, "welcome", "the welcome comes first");
      assert.deepEqual(popups(client.frames), [
        { type: "emergency", message: "Rose may have fallen", room: "Kitchen" },
        { type: "warning", message: "Rose has been in the bathroom for 40 minutes", room: "Bathroom" },
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
    const client = await connect();
    try {
      await settle();
      assert.deepEqual(popups(client.frames), []);
    } finally {
      client.close();
    }
  });
});
