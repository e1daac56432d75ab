/**
 * The senior's web app (`/app`) in a real Chromium: set up from the link, the time in the
 * household's time zone, a popup, a prompt answered by a tap (the run resumes), a prompt
 * answered over REST closing on screen, speech streamed from the local TTS engine and played,
 * the voice companion's fallback, and the shell served offline by the service worker with the
 * socket coming back after the server restarts. Screenshots of the idle screen, the popup, the
 * prompt and the lost connection go to test-output/screenshots/ (webapp-*.png).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { createApp, type CareflowApp } from "../../runtime/app/app";
import { buildSettings } from "../../runtime/platform/config/load-settings";
import { createLogger } from "../../runtime/platform/core/logger";
import { chromiumOrSkip, launchTabletBrowser, SCREENSHOT_DIR } from "../support/browser";
import { assertAccessible } from "../support/a11y";
import { eventually } from "../support/eventually";
import { KEYS, testAuthSettings } from "../support/test-app";
import { migratedDatabase, type TestDatabase } from "../support/test-db";
import { startTts, type RunningTts } from "../tts/helpers";

declare const document: any;
declare const window: any;
declare const navigator: any;

const TZ = "Asia/Kolkata";

interface AppReport {
  state: string;
  connects: number;
  chimes: number;
  shown: string[];
  audio: { streams: number; ended: number; frames: number; bytes: number; clips: number; playing: boolean };
  answers: Array<{ execution_id: number; step_id: number; action: string }>;
  dismissed: number[];
  queued: number;
}

describe("browser: the senior's web app", function () {
  this.timeout(120000);
  let db: TestDatabase;
  let tts: RunningTts;
  let app: CareflowApp | undefined;
  let port = 0;
  let base = "";
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  async function start(): Promise<void> {
    const settings = buildSettings({ auth: testAuthSettings(), app: { timezone: TZ }, tts: { url: tts.url } });
    app = await createApp({
      config: { port: 0, dataDir: db.dataDir, databaseUrl: db.databaseUrl, settingsFile: undefined, settings },
      log: createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent"),
      nodeRed: true,
      demo: false,
    });
    port = await app.listen(port, "127.0.0.1");
    base = `http://127.0.0.1:${port}`;
  }

  async function api(method: string, p: string, body?: unknown): Promise<any> {
    const res = await fetch(base + p, {
      method,
      headers: { "x-api-key": KEYS.admin, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, text };
  }

  let seq = 0;
  async function runRule(steps: unknown[], edges: unknown[] = []): Promise<number> {
    const imported = await api("POST", "/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: `App rule ${++seq}`, trigger_type: "manual" },
      steps,
      edges,
    });
    assert.equal(imported.status, 201, imported.text);
    const res = await api("POST", `/api/v1/rules/${imported.body.rule_id}/execute`);
    assert.equal(res.status, 201, res.text);
    return res.body.execution_id as number;
  }

  const notify = (config: Record<string, unknown>) =>
    runRule([{ label: "tell", step_type: "notification", schema_version: 1, config: { trigger_cooloff: false, ...config } }]);

  const ask = (config: Record<string, unknown>) =>
    runRule(
      [
        { label: "ask", step_type: "interactive_prompt", schema_version: 1, config },
        { label: "okay?", step_type: "condition", schema_version: 1, config: { expression: "interactive_response.action == 'dismiss'" } },
      ],
      [{ source_label: "ask", source_port: "main", target_label: "okay?" }],
    );

  async function runEnded(id: number): Promise<any> {
    for (let i = 0; i < 500; i++) {
      const run = (await api("GET", `/api/v1/workflows/${id}`)).body;
      if (["completed", "failed", "cancelled"].includes(run.status)) return run;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`run ${id} never ended`);
  }

  const report = (): Promise<AppReport> => page.evaluate(() => JSON.parse(JSON.stringify(window.careflowWebApp)));
  const screen = (): Promise<string> => page.evaluate(() => document.body.dataset.screen);
  const until = (fn: () => boolean, timeout = 15000) => page.waitForFunction(fn, undefined, { timeout });
  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, `webapp-${name}.png`) });

  before(async function () {
    const executablePath = chromiumOrSkip(this);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    db = await migratedDatabase();
    tts = await startTts();
    await start();
    browser = await launchTabletBrowser(executablePath);
    // A 10-inch tablet in landscape.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, hasTouch: true });
    page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${base}/app#key=${encodeURIComponent(KEYS.webapp)}`);
    await until(() => window.careflowWebApp?.state === "connected");
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await app?.close();
    await tts?.close();
    await db?.drop();
  });

  it("keeps the key from the set-up link, takes it out of the address bar, and shows the time and day in app.timezone", async () => {
    assert.equal(page.url(), `${base}/app/`);
    assert.equal(await page.evaluate(() => window.localStorage.getItem("careflow.webapp.key")), KEYS.webapp);
    assert.equal(await screen(), "idle");
    await until(() => {
      const want = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", timeZone: "Asia/Kolkata" }).format(new Date());
      return document.getElementById("clock").textContent === want;
    });
    const day = new Intl.DateTimeFormat("en-US", { weekday: "long", timeZone: TZ }).format(new Date());
    assert.equal(await page.locator("#day").innerText(), day);
    assert.match(await page.locator("#status-text").innerText(), /^Connected$/);
    await shot("idle");
    await assertAccessible(page, "the senior's app (idle)");
  });

  it("without a key, says the screen is not set up and who can set it up, with no API path on it", async () => {
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, hasTouch: true });
    try {
      const bare = await fresh.newPage();
      bare.on("pageerror", (e) => pageErrors.push(e.message));
      await bare.goto(`${base}/app/`);
      const setup = bare.locator("#setup");
      await setup.waitFor({ state: "visible" });
      const words = await setup.innerText();
      assert.match(words, /This screen is not set up yet\./);
      assert.match(words, /Ask the family to open this tablet's set-up link on it once\./);
      assert.doesNotMatch(words, /\/api\/|GET |webapp-link|[a-z]+\.[a-z_]+_[a-z]/, "no API or settings path on the senior's screen");
      await bare.screenshot({ path: path.join(SCREENSHOT_DIR, "webapp-not-set-up.png") });
      await assertAccessible(bare, "the senior's app, not set up");
    } finally {
      await fresh.close();
    }
  });

  it("the manifest and the service worker make it installable", async () => {
    const manifest = (await (await fetch(`${base}/app/manifest.webmanifest`)).json()) as { start_url: string; icons: Array<{ sizes: string }> };
    assert.equal(manifest.start_url, "/app/");
    assert.ok(manifest.icons.some((i) => i.sizes === "512x512"));
    await page.evaluate(() => navigator.serviceWorker.ready);
    assert.equal(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null), `${base}/app/sw.js`);
  });

  it("shows a popup after a chime, one thing at a time, and goes back to the clock on OK", async () => {
    const chimes = (await report()).chimes;
    const exec = await notify({
      alert_level: "reminder",
      channels: ["pwa_popup_text"],
      message_template: "Time for your heart tablet, with a glass of water.",
    });
    await until(() => window.careflowWebApp.chimes > 0);
    assert.equal(await screen(), "idle", "the chime comes before the words");
    await page.locator("#popup").waitFor({ state: "visible" });
    assert.equal((await report()).chimes, chimes + 1);
    assert.equal(await page.locator("#popup-message").innerText(), "Time for your heart tablet, with a glass of water.");
    assert.equal(await page.locator("#popup-level").innerText(), "Reminder");
    assert.equal(await page.locator("#idle").isVisible(), false, "the clock gives way");
    assert.equal((await runEnded(exec)).pipeline_data.notification_channels.pwa_popup_text, true);
    await shot("popup");
    await assertAccessible(page, "the senior's app (popup)");
    await page.locator("#popup-ok").tap();
    await until(() => document.body.dataset.screen === "idle");
  });

  it("shows a prompt with two big buttons and the countdown; a tap answers it and the run resumes", async () => {
    const exec = await ask({ popup_message_template: "You have been in the bathroom for 25 minutes. Are you okay?", countdown_seconds: 120 });
    await page.locator("#prompt").waitFor({ state: "visible" });
    assert.equal(await page.locator("#prompt-title").innerText(), "Question for You");
    assert.equal(await page.locator("#prompt-dismiss").innerText(), "I'm okay");
    assert.equal(await page.locator("#prompt-escalate").innerText(), "I need help");
    const seconds = Number(await page.locator("#prompt-seconds").innerText());
    assert.ok(seconds > 100 && seconds <= 120, `countdown shows ${seconds}`);
    await page.waitForTimeout(1200); // the countdown moves on screen
    assert.ok(Number(await page.locator("#prompt-seconds").innerText()) < seconds);
    await shot("prompt");
    await assertAccessible(page, "the senior's app (prompt)");
    await page.locator("#prompt-dismiss").tap();
    await page.locator("#prompt-thanks").waitFor({ state: "visible" });
    const run = await runEnded(exec);
    assert.equal(run.status, "completed");
    assert.equal(run.pipeline_data.interactive_response.channel, "pwa_popup_text");
    assert.equal(run.pipeline_data.interactive_response.action, "dismiss");
    assert.deepEqual(run.pipeline_data.interactive_response.raw_response, { button: "I'm okay" });
    await until(() => document.body.dataset.screen === "idle", 6000);
  });

  it("closes a prompt on screen when it was answered over REST", async () => {
    const exec = await ask({ popup_message_template: "Did you take your evening tablets?", countdown_seconds: 120 });
    await page.locator("#prompt").waitFor({ state: "visible" });
    const step_id = (await report()).shown.at(-1)!.split("/")[1];
    const res = await api("POST", "/api/v1/interactive-responses", {
      execution_id: exec,
      step_id: Number(step_id),
      channel: "pwa_realtime_ai",
      action: "escalate",
    });
    assert.equal(res.body.success, true, res.text);
    await until(() => document.body.dataset.screen === "idle");
    assert.equal((await runEnded(exec)).pipeline_data.interactive_response.channel, "pwa_realtime_ai");
    assert.equal((await report()).answers.filter((a) => a.execution_id === exec).length, 0, "the screen did not answer");
  });

  it("plays an announcement streamed from the TTS service (PCM frames over /ws)", async () => {
    const before = (await report()).audio;
    const exec = await notify({
      alert_level: "info",
      channels: ["announcement"],
      message_template: "Good evening. Your daughter Meera will visit you at six.",
    });
    // The stream's end frame follows its last audio frame on the same socket: all of it is here.
    await page.waitForFunction((ended) => window.careflowWebApp.audio.ended > ended, before.ended, { timeout: 20000 });
    const after = (await report()).audio;
    assert.equal(after.streams, before.streams + 1);
    assert.ok(after.bytes - before.bytes > 24000, `${after.bytes - before.bytes} bytes of audio`);
    const run = await runEnded(exec);
    assert.equal(run.pipeline_data.notification_channels.announcement, true);
  });

  it("the tts channel without a hub speaker plays a clip in the web app (file mode)", async () => {
    const before = (await report()).audio.clips;
    const exec = await notify({ alert_level: "info", channels: ["tts"], message_template: "The front door is open." });
    await until(() => window.careflowWebApp.audio.clips > 0, 20000);
    assert.equal((await report()).audio.clips, before + 1);
    const detail = await api("GET", `/api/v1/workflows/${exec}/detail`);
    assert.match(JSON.stringify(detail.body), /no hub speaker .*played on 1 screen instead/);
  });

  it("the voice companion without a realtime model: on screen and spoken with the TTS voice, and the receipt says so", async () => {
    const streams = (await report()).audio.streams;
    const exec = await notify({ alert_level: "warning", channels: ["pwa_realtime_ai"], message_template: "You have not had lunch yet." });
    await page.locator("#popup").waitFor({ state: "visible" });
    assert.equal(await page.locator("#popup-message").innerText(), "You have not had lunch yet.");
    await until(() => window.careflowWebApp.audio.streams > 0);
    assert.equal((await report()).audio.streams, streams + 1);
    // The step's receipt is written as the step ends, after the audio it streamed.
    const said = /no voice model is set up for the voice companion: shown instead on 1 screen, read aloud on 1 screen/;
    let detail = "";
    await eventually(
      "the notification step's receipt",
      async () => said.test((detail = JSON.stringify((await api("GET", `/api/v1/workflows/${exec}/detail`)).body))),
      30_000,
    ).catch(() => assert.match(detail, said));
    await page.locator("#popup-ok").tap();
    await until(() => document.body.dataset.screen === "idle");
  });

  it("puts an alert's popup away with OK for good on this tablet: a reload does not bring it back, and the alert stays open", async () => {
    await notify({ alert_level: "warning", channels: ["pwa_popup_text"], message_template: "The kettle has been on for an hour." });
    await page.locator("#popup-message", { hasText: "The kettle has been on for an hour." }).waitFor();
    const alert = (await api("GET", "/api/v1/alerts?resolved=false")).body.find((a: { description: string }) => /kettle/.test(a.description));
    assert.ok(alert, "the warning raised an alert");
    await page.locator("#popup-ok").tap();
    await until(() => document.body.dataset.screen === "idle");
    assert.ok((await report()).dismissed.includes(alert.id));
    await until(() => window.localStorage.getItem("careflow.webapp.put-away") === "[]"); // the server has it
    // A reload (or a restart of the tablet): the open alerts are replayed on connecting, before anything newer.
    await page.reload();
    await until(() => window.careflowWebApp?.state === "connected");
    await notify({ alert_level: "info", channels: ["pwa_popup_text"], message_template: "After the reload." });
    await page.locator("#popup-message", { hasText: "After the reload." }).waitFor();
    await shot("popup-after-reload");
    assert.deepEqual((await report()).shown, ["popup:After the reload."], "the kettle's popup did not come back");
    assert.equal((await api("GET", `/api/v1/alerts/${alert.id}`)).body.resolved, false, "still open for the family");
    await page.locator("#popup-ok").tap();
    await until(() => document.body.dataset.screen === "idle");
  });

  it("shows the shell offline from its service worker, and reconnects when the server is back", async () => {
    const dbg = (m: string) => (process.env.DBG ? console.log(new Date().toISOString(), m) : undefined);
    dbg("closing");
    await app!.close();
    dbg("closed");
    app = undefined;
    await until(() => window.careflowWebApp.state === "disconnected");
    await page
      .locator("#status-retry")
      .filter({ hasText: /trying again in \d+ s/ })
      .waitFor();
    // A reload while the server is away: the service worker serves the shell.
    dbg("disconnected shown");
    await page.reload();
    dbg("reloaded");
    await until(() => window.careflowWebApp?.state === "disconnected");
    assert.equal(await screen(), "idle");
    assert.equal(await page.locator("#status-text").innerText(), "Not connected");
    await shot("disconnected");
    await assertAccessible(page, "the senior's app (disconnected)");
    await start();
    dbg("restarted");
    await until(() => window.careflowWebApp.state === "connected", 20000);
    dbg("reconnected");
    await notify({ alert_level: "info", channels: ["pwa_popup_text"], message_template: "Back again." });
    await page.locator("#popup-message", { hasText: "Back again." }).waitFor();
    assert.deepEqual(pageErrors, []);
  });
  it("keeps an answer tapped while the server is away and sends it when it is back; the run resumes", async () => {
    const exec = await ask({ popup_message_template: "Are you warm enough?", countdown_seconds: 120 });
    await page.locator("#prompt-message", { hasText: "Are you warm enough?" }).waitFor();
    await app!.close();
    app = undefined;
    await until(() => window.careflowWebApp.state === "disconnected");
    await page.locator("#prompt-dismiss").tap();
    await page.locator("#prompt-thanks").waitFor({ state: "visible" });
    await until(() => document.body.dataset.screen !== "prompt", 6000); // the thanks is over
    const chimes = (await report()).chimes;
    await start();
    await until(() => window.careflowWebApp.state === "connected", 20000);
    const run = await runEnded(exec);
    assert.equal(run.status, "completed");
    assert.equal(run.pipeline_data.interactive_response.channel, "pwa_popup_text");
    assert.equal(run.pipeline_data.interactive_response.action, "dismiss");
    // The server sends the still open prompt again on reconnect (before the kept answer lands):
    // the screen that answered it does not ask again, not even with a chime.
    await page.waitForTimeout(1000);
    assert.equal((await report()).shown.filter((s) => s.startsWith(`prompt:${exec}/`)).length, 1);
    assert.equal((await report()).chimes, chimes);
  });

  it("shows a prompt put while the tablet was disconnected when it reconnects, with the seconds left, once", async () => {
    const context = page.context();
    // The tablet loses the server (it restarts) and stays off the network for a while.
    await context.setOffline(true);
    await app!.close();
    app = undefined;
    await until(() => window.careflowWebApp.state === "disconnected");
    await start();
    const exec = await ask({ popup_title: "While you were away", popup_message_template: "Did you close the back door?", countdown_seconds: 60 });
    assert.equal(app!.ctx.webapp.size, 0, "the prompt went out to no web app");
    await page.waitForTimeout(5000); // the countdown runs meanwhile
    assert.notEqual(await screen(), "prompt");
    await context.setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new window.Event("online")));
    await page.locator("#prompt-message", { hasText: "Did you close the back door?" }).waitFor({ timeout: 20000 });
    assert.equal(await page.locator("#prompt-title").innerText(), "While you were away");
    const seconds = Number(await page.locator("#prompt-seconds").innerText());
    assert.ok(seconds > 30 && seconds <= 55, `countdown shows ${seconds}, not the full 60`);
    const bar = await page.locator("#prompt-bar").evaluate((el: any) => parseFloat(el.style.width));
    assert.ok(bar <= 92, `the bar shows ${bar}% of the step's 60 s`);
    await shot("prompt-reconnected");
    // Another reconnect without a reload while it is on screen: sent again, shown once.
    const connects = (await report()).connects;
    await app!.close();
    app = undefined;
    await start();
    await page.waitForFunction((before: number) => window.careflowWebApp.connects > before && window.careflowWebApp.state === "connected", connects, {
      timeout: 40000,
    });
    await page.waitForTimeout(500);
    assert.equal((await report()).shown.filter((s) => s.startsWith(`prompt:${exec}/`)).length, 1);
    assert.equal(await screen(), "prompt");
    assert.equal((await report()).queued, 1, "only the popup from before waits behind it, not the prompt again");
    await page.locator("#prompt-dismiss").tap();
    const run = await runEnded(exec);
    assert.equal(run.pipeline_data.interactive_response.channel, "pwa_popup_text");
    assert.deepEqual(pageErrors, []);
  });
});
