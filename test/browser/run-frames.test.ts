/**
 * The trace's frames in the editor, in a real Chromium: a camera batch of stored JPEG frames
 * starts a rule with a vision model step (a fake model); the Care runs tab shows, for that
 * run, thumbnails of the frames that started it and of the images the model step was sent,
 * loaded from their signed URLs, and a placeholder for a frame the store no longer keeps.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import type { Page } from "playwright-core";
import { storeFrame, type StoredFrame } from "../../runtime/household/media/media.service";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../fakes/openai-chat-server";
import { startEditorSession, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

declare const document: any;

const GONE = `media/ab/ab/${"ab".repeat(32)}.jpg`;

describe("browser: a run's camera frames in the Care runs tab", function () {
  this.timeout(60000);
  let s: EditorSession;
  let model: ScriptedServer;
  let page: Page;
  let frames: StoredFrame[];
  let runId: number;

  before(async function () {
    model = await startFakeOpenAiChatServer();
    model.fallback = { content: JSON.stringify({ person_fell: false }) };
    s = await startEditorSession(this, {
      settings: { llm: { models: [{ id: "vision", api_type: "openai", base_url: model.baseUrl, model: "llava", capabilities: ["text", "vision"] }] } },
    });
    const t = s.t;
    const room = (await t.post("/api/v1/rooms", { name: "Hallway" })).body.id;
    const made = await t.post("/api/v1/sensors", {
      sensor_id: "front_cam",
      name: "Front door camera",
      sensor_type: "camera",
      source: "device_key",
      room_id: room,
    });
    assert.equal(made.status, 201, made.text);
    // Three frames a camera would send: shapes on a background, so the thumbnails show something.
    frames = [];
    for (const [i, colour] of ["#c0392b", "#2e7bcf", "#3a9b3a"].entries()) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="${colour}"/><circle cx="${80 + i * 80}" cy="120" r="50" fill="#fff"/></svg>`;
      const bytes = await sharp(Buffer.from(svg)).jpeg().toBuffer();
      frames.push(await storeFrame(t.app.ctx, { sensor_id: "front_cam", room_name: "Hallway", bytes, labels: ["person"] }));
    }
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Front door watch", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "front_cam" } },
      steps: [
        {
          label: "look",
          step_type: "llm_call",
          config: {
            model_id: "vision",
            prompt: "Did someone fall?",
            image_source: "trigger",
            max_images: 2,
            response_format: "json_free",
            output_key: "vision_response",
          },
        },
      ],
    });
    assert.equal(res.status, 201, res.text);
    t.app.ctx.bus.publish("sensor.event", {
      kind: "camera_batch",
      batch_id: 1,
      sensor_id: "front_cam",
      room_name: "Hallway",
      media_paths: [...frames.map((f) => f.path), GONE],
      media_type: "image/jpeg",
    });
    for (let i = 0; i < 500 && runId === undefined; i++) {
      const run = (await t.get("/api/v1/workflows")).body[0];
      if (run?.status === "completed") runId = run.id;
      else await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(runId, "the run completed");
    page = await s.newEditorPage("admin", KEYS.admin);
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
    await model?.close();
  });

  it("shows thumbnails of the frames that started the run and of the images the model step was sent", async () => {
    await page.locator("#red-ui-tab-careflow-runs-link-button").click();
    await page.locator(`.careflow-run[data-execution="${runId}"]`).click();
    const started = page.locator(".careflow-trigger-frames");
    await started.waitFor({ state: "visible" });
    assert.match(await started.innerText(), /Frames that started it \(4\)/);
    const sent = page.locator(".careflow-step-images");
    await sent.waitFor({ state: "visible" });
    assert.match(await sent.innerText(), /Images sent \(2\)/);

    // Every thumbnail has loaded its frame from the signed URL.
    await page.waitForFunction(
      () => {
        const imgs = [...document.querySelectorAll(".careflow-frame img")];
        return imgs.length === 5 && imgs.every((i: any) => i.complete && i.naturalWidth > 0);
      },
      undefined,
      { timeout: 15000 },
    );
    const shown = await page.locator(".careflow-frame img").evaluateAll((imgs: any[]) =>
      imgs.map((i) => ({
        frame: i.parentElement.dataset.frame,
        natural: i.naturalWidth,
        width: i.getBoundingClientRect().width,
        href: i.parentElement.href,
      })),
    );
    assert.deepEqual(
      shown.map((i) => i.frame),
      [...frames.map((f) => f.object_name), frames[0].object_name, frames[1].object_name],
    );
    for (const i of shown) {
      assert.equal(i.natural, 320, "the full frame is loaded");
      assert.equal(i.width, 64, "and scaled down by CSS");
      assert.match(i.href, new RegExp(`/api/v1/media/${i.frame.replace(".", "\\.")}\\?expires=\\d+&sig=`), "a click opens the frame");
    }
    // A frame the store does not keep any more: a placeholder that says so.
    const gone = page.locator(".careflow-frame-gone");
    assert.equal(await gone.count(), 1);
    assert.match((await gone.getAttribute("title")) ?? "", /no longer kept/);
    await s.screenshot(page, "20-run-frames");
  });

  it("opens the full frame from a thumbnail", async () => {
    const link = page.locator(".careflow-trigger-frames a.careflow-frame").first();
    const [tab] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
    await tab.waitForLoadState();
    const size = await tab.evaluate(() => {
      const img = document.querySelector("img");
      return img ? img.naturalWidth : 0;
    });
    assert.equal(size, 320);
    await tab.close();
  });
});
