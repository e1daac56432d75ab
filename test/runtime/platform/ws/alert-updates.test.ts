import assert from "node:assert/strict";
import WebSocket from "ws";
import { createAlert } from "../../../../runtime/household/alerts/alerts.service";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("/ws alert updates", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("pushes an alert when it is raised and again when it is acknowledged", async () => {
    const frames: Array<Record<string, any>> = [];
    const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws?api_key=${KEYS.caregiver}`);
    // The alert updates; the socket also gets its welcome and, for an emergency, the popup (docs/webapp.md).
    ws.on("message", (d) => {
      const f = JSON.parse(String(d));
      if (f.type === "alert_update") frames.push(f);
    });
    await new Promise((r) => ws.once("open", r));
    const alert = await createAlert(t.app.ctx, { alert_type: "fall", level: "emergency", description: "Possible fall", room_name: "bathroom" });
    await t.request("POST", `/api/v1/alerts/${alert.id}/action`, { key: KEYS.caregiver, body: { action: "dismiss" } });
    for (let i = 0; i < 100 && frames.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    ws.close();
    assert.deepEqual(
      frames.map((f) => [f.type, f.event, f.alert.id]),
      [
        ["alert_update", "created", alert.id],
        ["alert_update", "acknowledged", alert.id],
      ],
    );
    assert.equal(frames[1].alert.resolved, true);
    assert.equal(frames[1].alert.resolved_by, "test caregiver");
  });

  it("refuses a client without a valid key", async () => {
    const res = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`);
      ws.once("unexpected-response", (_req, r) => resolve(r.statusCode ?? 0));
      ws.once("open", () => resolve(101));
    });
    assert.equal(res, 401);
  });
});
