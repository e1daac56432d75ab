/**
 * `renderToDevices`, the function the `eink` notification channel will call, on its own
 * (no HTTP): targets, configured defaults, expiry and the shared image file.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { getDeviceState } from "../../../../../runtime/care/services/eink/device-states.store";
import { renderToDevices, resetDevices } from "../../../../../runtime/care/services/eink/render.service";
import { pollActiveImage } from "../../../../../runtime/care/services/eink/serving.service";
import { startTestApp, type TestApp } from "../../../../support/test-app";

describe("e-ink renderToDevices (service)", () => {
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-22T12:00:00Z"));
  before(async () => {
    t = await startTestApp({ clock, settings: { notifications: { eink: { default_targets: ["hall_display"], default_expiry_minutes: 45 } } } });
  });
  after(() => t.close());

  it("uses the configured default targets and expiry when the caller names none", async () => {
    const receipt = await renderToDevices(t.app.ctx, { regions: { title: "Alert", body: "Front door open" } });
    assert.deepEqual(receipt.sensor_ids, ["hall_display"]);
    assert.equal(receipt.expires_at, "2026-11-22T12:45:00.000Z");
    const state = await getDeviceState(t.app.ctx, "hall_display");
    assert.equal(state?.image_hash, receipt.image_hash);
    assert.equal(state?.rendered_text, "Alert\nFront door open");
    assert.equal(await getDeviceState(t.app.ctx, "bedside_terminal"), undefined);
  });

  it("stores one file for all targets and serves it to each", async () => {
    const receipt = await renderToDevices(t.app.ctx, { text: "Dinner at seven", sensor_ids: ["hall_display", "bedside_terminal"], expires_in_minutes: 10 });
    const file = path.join(t.app.ctx.dataDir, "eink", "images", `${receipt.image_hash}.png`);
    assert.ok(fs.existsSync(file));
    for (const id of receipt.sensor_ids) {
      const served = await pollActiveImage(t.app.ctx, id);
      assert.equal(served.kind, "image");
      assert.equal(served.hash, receipt.image_hash);
    }
  });

  it("removes the replaced image file once no display refers to it", async () => {
    const first = await renderToDevices(t.app.ctx, { text: "First", sensor_ids: ["hall_display", "bedside_terminal"] });
    const second = await renderToDevices(t.app.ctx, { text: "Second", sensor_ids: ["hall_display", "bedside_terminal"] });
    const dir = path.join(t.app.ctx.dataDir, "eink", "images");
    assert.equal(fs.existsSync(path.join(dir, `${first.image_hash}.png`)), false);
    assert.equal(fs.existsSync(path.join(dir, `${second.image_hash}.png`)), true);
    await resetDevices(t.app.ctx, {});
    assert.equal(fs.existsSync(path.join(dir, `${second.image_hash}.png`)), false);
  });

  it("rejects bad input with a ValidationError naming the field", async () => {
    await assert.rejects(renderToDevices(t.app.ctx, { text: "x", sensor_ids: ["nobody"] }), /sensor_ids: unknown sensor/);
    await assert.rejects(renderToDevices(t.app.ctx, { text: "x", expires_in_minutes: -5 }), /expires_in_minutes/);
  });
});
